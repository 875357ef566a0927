package offsetcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"
)

// Formats of the command's output.
const (
	FormatText = "text"
	FormatJSON = "json"
)

// Write prints v (a *Report or an *Edit) in format.
func Write(w io.Writer, format string, v any) error {
	switch format {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case FormatText, "":
	default:
		return fmt.Errorf("--format: must be %s or %s; got %q", FormatText, FormatJSON, format)
	}
	switch v := v.(type) {
	case *Report:
		return writeReport(w, v)
	case *Edit:
		return writeEdit(w, v)
	}
	return fmt.Errorf("nothing to print for %T", v)
}

func writeEdit(w io.Writer, e *Edit) error {
	fmt.Fprintln(w, "Before:")
	if err := writeReport(w, e.Before); err != nil {
		return err
	}
	fmt.Fprintln(w)
	switch {
	case e.DryRun:
		fmt.Fprintln(w, "After (dry run: nothing was written):")
	default:
		fmt.Fprintln(w, "After (written):")
	}
	if err := writeReport(w, e.After); err != nil {
		return err
	}
	for _, n := range e.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	return nil
}

func writeReport(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "Checkpoint: cache %s, key %s, seq %d", r.Cache, r.Key, r.Seq)
	if r.FromBackup {
		fmt.Fprintf(w, " (from the backup copy %s.bak)", r.Key)
	}
	fmt.Fprintln(w)
	if r.SavedAgoSeconds != nil {
		fmt.Fprintf(w, "Last saved by the input: %s (%s ago)\n", r.SavedAt.UTC().Format(time.RFC3339), seconds(*r.SavedAgoSeconds))
	}
	if c := r.Chain; c != nil {
		fmt.Fprintf(w, "Chain: window [%s, %s)", c.WindowStart, orOpen(c.WindowEnd))
		if c.Last != nil {
			fmt.Fprintf(w, ", last delivered row tso %d (%s) of %s, lsn %d", c.Last.TSO, c.Last.Time, c.Last.Table, *c.Last.LSN)
		}
		fmt.Fprintln(w)
	}
	if r.Doris.Reachable {
		fmt.Fprintf(w, "Doris time: %s UTC\n", r.Doris.Now.Format(tsoTimeLayout))
	} else {
		fmt.Fprintf(w, "Doris unreachable (%s): binlog TTLs unknown; ages by this machine's clock\n", r.Doris.Error)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TABLE\tPHASE\tRESUME TSO\tTIME (UTC)\tLSN\tSNAPSHOT TABLETS DONE\tAGE\tTTL\tHEADROOM")
	for _, t := range r.Tables {
		tso, at, lsn, age, ttl, headroom := "-", "-", "-", "-", "-", "-"
		if p := t.Position; p != nil {
			tso, at = strconv.FormatInt(p.TSO, 10), p.Time
			if p.LSN != nil {
				lsn = strconv.FormatInt(*p.LSN, 10)
			}
		}
		if t.AgeSeconds != nil {
			age = seconds(*t.AgeSeconds)
		}
		if t.TTLSeconds != nil {
			ttl = seconds(float64(*t.TTLSeconds))
			if *t.TTLSeconds <= 0 {
				ttl = "forever"
			}
		}
		if t.HeadroomSeconds != nil {
			headroom = seconds(*t.HeadroomSeconds)
			if t.Expired {
				headroom += " EXPIRED"
			}
		}
		if t.Error != "" {
			ttl = "? (" + t.Error + ")"
		}
		snap := "-"
		if t.Phase == "snapshot" {
			snap = strconv.Itoa(t.SnapshotDoneTablets)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Table, t.Phase, tso, at, lsn, snap, age, ttl, headroom)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writeSignals(w, r.Tables)
	return nil
}

// writeSignals prints, under the table, the signals each table has noted
// or is taking a snapshot for.
func writeSignals(w io.Writer, tables []TableReport) {
	for _, t := range tables {
		if t.Signal != "" {
			fmt.Fprintf(w, "Signal: %s takes the snapshot of signal %s%s\n", t.Table, t.Signal, filterText(t.SignalFilter))
		}
		if p := t.PendingSignal; p != nil {
			fmt.Fprintf(w, "Pending signal: %s has %s signal %s%s, applied when the chain's window ends\n", t.Table, p.Kind, p.ID, filterText(p.Filter))
		}
	}
}

func filterText(filter string) string {
	if filter == "" {
		return ""
	}
	return " (filter: " + filter + ")"
}

func orOpen(end string) string {
	if end == "" {
		return "open"
	}
	return end
}

// seconds prints a duration in seconds the way people read it.
func seconds(s float64) string {
	return (time.Duration(s*1000) * time.Millisecond).Round(time.Second).String()
}
