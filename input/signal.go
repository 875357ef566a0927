package input

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// Columns of the signal table (signal_table), as Debezium's signal table
// has them: a unique id, the kind of signal and its JSON arguments.
const (
	signalColID   = "id"
	signalColType = "type"
	signalColData = "data"
)

// Keys of a signal's data, as Debezium's ad-hoc snapshot signals spell
// them, so that signals written for Debezium read the same here.
const (
	signalKeyTables     = "data-collections"
	signalKeyConditions = "additional-conditions"
	signalKeyTable      = "data-collection"
	signalKeyFilter     = "filter"
)

// metaSignalID names, on each row of a snapshot a signal started, the id
// of that signal.
const metaSignalID = "signal_id"

// signal is one signal_table row, parsed.
type signal struct {
	id, kind string
	tables   []string          // db.table keys; empty: every table it may apply to (stop-snapshot)
	filters  map[string]string // per-table conditions of the new snapshot
}

// signalData is a signal's data column.
type signalData struct {
	Tables     []string `json:"data-collections"`
	Conditions []struct {
		Table  string `json:"data-collection"`
		Filter string `json:"filter"`
	} `json:"additional-conditions"`
}

// parseSignal reads a signal_table row's body. An error says what is wrong
// with the row; the row is then skipped, never a data row.
func parseSignal(body []byte) (*signal, error) {
	var row map[string]any
	if err := json.Unmarshal(body, &row); err != nil {
		return nil, fmt.Errorf("the row is not a JSON object: %v", err)
	}
	str := func(col string) (string, error) {
		switch v := row[col].(type) {
		case string:
			return v, nil
		case nil:
			return "", nil
		default:
			return "", fmt.Errorf("column %s must be a string; got %v", col, v)
		}
	}
	id, err := str(signalColID)
	if err != nil {
		return nil, err
	}
	sig := &signal{id: id}
	if strings.TrimSpace(id) == "" {
		return sig, fmt.Errorf("column %s is empty", signalColID)
	}
	if sig.kind, err = str(signalColType); err != nil {
		return sig, err
	}
	data, err := str(signalColData)
	if err != nil {
		return sig, err
	}
	switch sig.kind {
	case checkpoint.SignalExecuteSnapshot, checkpoint.SignalStopSnapshot:
	default:
		return sig, fmt.Errorf("unknown type %q (known: %s, %s)", sig.kind, checkpoint.SignalExecuteSnapshot, checkpoint.SignalStopSnapshot)
	}
	var d signalData
	if strings.TrimSpace(data) != "" {
		dec := json.NewDecoder(strings.NewReader(data))
		if err := dec.Decode(&d); err != nil {
			return sig, fmt.Errorf("column %s is not the JSON object a %s signal takes: %v", signalColData, sig.kind, err)
		}
	}
	for _, name := range d.Tables {
		key, err := signalTableKey(name)
		if err != nil {
			return sig, fmt.Errorf("%s: %w", signalKeyTables, err)
		}
		sig.tables = append(sig.tables, key)
	}
	if sig.kind == checkpoint.SignalExecuteSnapshot && len(sig.tables) == 0 {
		return sig, fmt.Errorf("an %s signal needs the tables to snapshot in %s %s", sig.kind, signalColData, signalKeyTables)
	}
	for _, c := range d.Conditions {
		key, err := signalTableKey(c.Table)
		if err != nil {
			return sig, fmt.Errorf("%s: %w", signalKeyConditions, err)
		}
		if err := doris.ValidateFilterExpression(signalKeyConditions+" filter of "+key, c.Filter); err != nil {
			return sig, err
		}
		if sig.filters == nil {
			sig.filters = map[string]string{}
		}
		sig.filters[key] = c.Filter
	}
	return sig, nil
}

// signalTableKey is name as a table key (db.table, backticks as in the
// config's table names).
func signalTableKey(name string) (string, error) {
	t, err := parseTableName(name)
	if err != nil {
		return "", fmt.Errorf("table %q: %w", name, err)
	}
	return t.key, nil
}

// signalRows splits a merged batch of a window into the data rows and the
// signal table's rows; every row of a signal table is taken out, whatever
// its operation.
func signalRows(msgs []*service.Message, sigTable tableName) (data, signals []*service.Message) {
	for i, m := range msgs {
		if isSignalRow(m, sigTable) {
			if signals == nil {
				data = append(make([]*service.Message, 0, len(msgs)), msgs[:i]...)
			}
			signals = append(signals, m)
			continue
		}
		if signals != nil {
			data = append(data, m)
		}
	}
	if signals == nil {
		return msgs, nil
	}
	return data, signals
}

func isSignalRow(m *service.Message, sigTable tableName) bool {
	tbl, _ := m.MetaGetMut(metaKeyTable)
	db, _ := m.MetaGetMut(metaKeyDatabase)
	return tbl == sigTable.table && db == sigTable.db
}
