package flight

import "strings"

// Limit is what a Doris refusal for resources says about the refused
// query, and so what reading it again can achieve.
type Limit int

const (
	// NoLimit: the error is not a refusal for resources.
	NoLimit Limit = iota
	// QueryMemory: the query itself needs more than its exec_mem_limit.
	// The same query needs the same memory again; a smaller one may not.
	QueryMemory
	// MemoryPressure: the BE process or its workload group ran short of
	// memory and cancelled the query, or refused it an allocation, to
	// protect itself. It passes once other work finishes or is cancelled.
	MemoryPressure
	// Memory: MEM_LIMIT_EXCEEDED in a form that does not say which.
	Memory
	// Timeout: Doris's query_timeout ran out. Doris counts every second
	// the query is open, including the time the client takes to fetch.
	Timeout
)

// The texts are matched case-insensitively, in this order: pressure before
// the query's own limit, and both before the generic memory texts, which
// every MEM_LIMIT_EXCEEDED carries. What each form means and where Doris
// writes it is in docs/contracts.md ("Doris memory and timeout errors").
var (
	// pressureTexts are the process's and the workload group's refusals.
	pressureTexts = []string{
		"process memory not enough",           // the memory GC cancelled the query ([MEM_LIMIT_EXCEEDED])
		"process has no memory available",     // the same, in earlier 2.x ([CANCELLED], apache/doris#33565)
		"allocator sys memory check failed",   // an allocation would pass the process limit
		"less than low water mark",            // every process-limit text since 1.2
		"less than warning water mark",        // the soft limit's texts
		"because process limit exceeded",      // reserve memory: the process is full
		"because workload group limit exceed", // reserve memory: the workload group is full
	}
	// queryMemoryTexts are the query's own exec_mem_limit.
	queryMemoryTexts = []string{
		"memory tracker limit exceeded",      // the query's tracker is over exec_mem_limit
		"allocator mem tracker check failed", // the allocation that found it so
		"exceeded tracker",                   // the same in 1.2's texts
		"query reserve memory failed, but",   // reserve memory: over the query's limit, nothing to spill
	}
	// memoryTexts are any memory refusal ("Memory exceed limit" up to 1.1,
	// "Memory limit exceeded" and [MEM_LIMIT_EXCEEDED] since 1.2).
	memoryTexts = []string{"mem_limit_exceeded", "memory limit exceeded", "memory exceed limit", "exceed limit"}
	// timeoutTexts are query_timeout ("Timeout", and the [TIMEOUT] status
	// since 2.1).
	timeoutTexts = []string{"[timeout]", "detailmessage = timeout", "query timeout", "query is timeout"}
)

// ClassifyLimit tells whether err is Doris refusing a query for its
// resources, and which kind of refusal it is.
func ClassifyLimit(err error) Limit {
	if err == nil {
		return NoLimit
	}
	msg := strings.ToLower(err.Error())
	switch {
	case containsAny(msg, pressureTexts):
		return MemoryPressure
	case containsAny(msg, queryMemoryTexts):
		return QueryMemory
	case containsAny(msg, memoryTexts):
		return Memory
	case containsAny(msg, timeoutTexts):
		return Timeout
	}
	return NoLimit
}

func containsAny(msg string, texts []string) bool {
	for _, t := range texts {
		if strings.Contains(msg, t) {
			return true
		}
	}
	return false
}

func (l Limit) String() string {
	switch l {
	case QueryMemory:
		return "the query's own exec_mem_limit"
	case MemoryPressure:
		return "memory pressure on the Doris BE"
	case Memory:
		return "a Doris memory limit"
	case Timeout:
		return "Doris's query_timeout"
	}
	return "no limit"
}
