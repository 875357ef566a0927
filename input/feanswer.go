package input

import "sync"

// feAnswer keeps the answer of a question about the FE rather than about
// one table, asked of the first table that needs it: whether the FE has
// the hidden commit TSO column is the same for every row-binlog table
// (every such table has it on an FE with time travel, none has it on an
// older one), so a database of a thousand tables is probed once, not a
// thousand times (three statements each). A failed probe is not kept.
type feAnswer struct {
	mu    sync.Mutex
	known bool
	yes   bool
}

func (a *feAnswer) get(ask func() (bool, error)) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.known {
		return a.yes, nil
	}
	yes, err := ask()
	if err != nil {
		return false, err
	}
	a.known, a.yes = true, yes
	return yes, nil
}
