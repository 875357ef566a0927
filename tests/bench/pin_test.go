package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pinning says where the pinned measurements run: dorissim on one CPU, the
// client (the binary, or this process for the MySQL path) on another, so
// that the client's CPU is its own and not shared with the simulator's.
type pinning struct {
	sim, client string // CPU numbers for taskset -c; both "" when unpinned
	why         string // why the run is unpinned
}

func (p pinning) String() string {
	if p.client == "" {
		return "unpinned: " + p.why
	}
	return fmt.Sprintf("dorissim on CPU %s, client on CPU %s", p.sim, p.client)
}

// choosePinning takes the first two CPUs this process may run on, when the
// machine has taskset.
func choosePinning() pinning {
	if _, err := exec.LookPath("taskset"); err != nil {
		return pinning{why: "no taskset"}
	}
	cpus, err := allowedCPUs(os.Getpid())
	if err != nil {
		return pinning{why: err.Error()}
	}
	if len(cpus) < 2 {
		return pinning{why: fmt.Sprintf("only CPU %v allowed", cpus)}
	}
	return pinning{sim: strconv.Itoa(cpus[0]), client: strconv.Itoa(cpus[1])}
}

func allowedCPUs(pid int) ([]int, error) {
	list, err := allowedCPUList(pid)
	if err != nil {
		return nil, err
	}
	return parseCPUList(list)
}

// allowedCPUList is the Cpus_allowed_list of /proc/<pid>/status ("0-3,6").
func allowedCPUList(pid int) (string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("no Cpus_allowed_list in /proc/%d/status", pid)
}

// parseCPUList reads the kernel's CPU list format: "0-3,6,8-9".
func parseCPUList(list string) ([]int, error) {
	var cpus []int
	for _, part := range strings.Split(strings.TrimSpace(list), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("CPU list %q: bad CPU %q", list, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("CPU list %q: bad range %q", list, part)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// pinProcess moves every thread of pid to cpus (threads created later
// inherit it) and returns the function that puts the old set back.
func pinProcess(t *testing.T, pid int, cpus string) (restore func()) {
	t.Helper()
	old, err := allowedCPUList(pid)
	if err != nil {
		t.Fatalf("CPU affinity of %d: %v", pid, err)
	}
	set := func(list string) error {
		out, err := exec.Command("taskset", "-a", "-p", "-c", list, strconv.Itoa(pid)).CombinedOutput()
		if err != nil {
			return fmt.Errorf("taskset -a -p -c %s %d: %v: %s", list, pid, err, out)
		}
		return nil
	}
	if err := set(cpus); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := set(old); err != nil {
			t.Errorf("restoring CPU affinity: %v", err)
		}
	}
}

// pinnedResult is the Flight path (the binary's snapshot of the mixed
// table) and the MySQL path (baseline b) measured with the client and
// dorissim on separate CPUs.
type pinnedResult struct {
	pin                       pinning
	flight                    procResult
	mysql                     pathResult
	mysqlCPU                  time.Duration
	simFlightCPU, simMySQLCPU time.Duration
}

func measurePinned(t *testing.T, ctx context.Context, s *sim) (pinnedResult, error) {
	t.Helper()
	res := pinnedResult{pin: choosePinning()}
	if res.pin.client != "" {
		defer pinProcess(t, s.cmd.Process.Pid, res.pin.sim)()
	}
	_, res.simFlightCPU = cpuOf(t, s, func() {
		res.flight = runRPConnectWith(t, ctx, snapshotConfig(s, "mixed"), runOpts{cpus: res.pin.client})
	})
	restore := func() {}
	if res.pin.client != "" {
		// The MySQL path runs in this process: pin all of it while it reads.
		restore = pinProcess(t, os.Getpid(), res.pin.client)
	}
	var err error
	res.mysqlCPU, res.simMySQLCPU = cpuOf(t, s, func() {
		res.mysql, err = mysqlPath(ctx, s, "mixed", map[string]bool{"active": true})
	})
	restore()
	return res, err
}

func (p pinnedResult) rows() []row {
	perM := func(d time.Duration, n int64) float64 { return d.Seconds() / (float64(n) / 1e6) }
	flightCPU, mysqlCPU := perM(p.flight.cpu, snapshotRows), perM(p.mysqlCPU, p.mysql.rows)
	return []row{
		info("p. pinned: "+p.pin.String(), fmt.Sprintf("%s mixed rows, Flight path a / MySQL path b", count(snapshotRows))),
		info("p. client CPU per 1M rows: Flight a / MySQL b", fmt.Sprintf("%.2f s / %.2f s (b/a %.2f)", flightCPU, mysqlCPU, ratio(mysqlCPU, flightCPU))),
		info("p. dorissim CPU per 1M rows: Flight a / MySQL b", fmt.Sprintf("%.2f s / %.2f s",
			perM(p.simFlightCPU, snapshotRows), perM(p.simMySQLCPU, p.mysql.rows))),
		info("p. throughput pinned: Flight a / MySQL b", fmt.Sprintf("%s / %s",
			fmtRate(perSec(snapshotRows, p.flight.wall.Seconds()), "rows/s"), fmtRate(perSec(p.mysql.rows, p.mysql.wall.Seconds()), "rows/s"))),
	}
}

func TestParseCPUList(t *testing.T) {
	got, err := parseCPUList("0-2,5,7-8\n")
	if err != nil || fmt.Sprint(got) != "[0 1 2 5 7 8]" {
		t.Fatalf("got %v %v", got, err)
	}
	for _, bad := range []string{"", "a", "3-1", "1-", "-1", "0,,1"} {
		if _, err := parseCPUList(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
