package storage

import (
	"strconv"
	"strings"
)

// applyProperties validates PROPERTIES the way Doris's CREATE TABLE does for
// the model and the Row Binlog, and fills the effective property map.
func applyProperties(t *table) error {
	p := t.def.Properties
	mow, err := resolveMoW(t, p)
	if err != nil {
		return err
	}
	t.mow = mow
	if err := resolveBinlog(t, p); err != nil {
		return err
	}
	if t.def.Keys == AggKeys {
		return errorf("AGGREGATE KEY tables are not supported by the simulator")
	}
	if err := checkSequence(t); err != nil {
		return err
	}
	if v, ok := p[propReplication]; ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || n <= 0 {
			return errorf("Invalid replication_num value: %s", v)
		}
	}
	t.props = effectiveProps(t)
	return nil
}

func resolveMoW(t *table, p map[string]string) (bool, error) {
	v, set := p[propMoW]
	if !set {
		return t.def.Keys == UniqueKeys, nil
	}
	b, err := parseBoolProp(propMoW, v)
	if err != nil {
		return false, err
	}
	if t.def.Keys != UniqueKeys {
		// CreateTableInfo.validate refuses the key whatever its value.
		return false, errorf("enable_unique_key_merge_on_write property only support unique key table")
	}
	return b, nil
}

func resolveBinlog(t *table, p map[string]string) error {
	enabled := false
	if v, ok := p[propBinlogEnable]; ok {
		b, err := parseBoolProp(propBinlogEnable, v)
		if err != nil {
			return err
		}
		enabled = b
	}
	format, hasFormat := p[propBinlogFormat]
	if hasFormat && format != "ROW" {
		return errorf("Invalid binlog format value: %s", format)
	}
	t.rowBinlog = enabled && hasFormat
	t.ttl = defaultTTL
	if v, ok := p[propTTL]; ok {
		n, err := parseTTL(v)
		if err != nil {
			return err
		}
		t.ttl = n
	}
	if v, ok := p[propNeedHist]; ok {
		b, err := parseBoolProp(propNeedHist, v)
		if err != nil {
			return err
		}
		t.needHist = b
	}
	if !t.rowBinlog {
		t.needHist = false
		return nil
	}
	return checkRowBinlogModel(t)
}

func checkRowBinlogModel(t *table) error {
	isMoW := t.def.Keys == UniqueKeys && t.mow
	if t.def.Keys != DupKeys && !isMoW {
		return errorf("Only duplicate and mow table model support binlog<Row>")
	}
	if isMoW && len(t.def.ClusterColumns) > 0 {
		return errorf("Unique merge-on-write tables with cluster keys do not support binlog<Row>")
	}
	if t.def.Keys == DupKeys && t.needHist {
		return errorf("Duplicate table model don't support record historical value")
	}
	for _, c := range t.def.Columns {
		if c.AutoIncrement {
			return errorf("Table with binlog<Row> does not support auto-increment column: %s", c.Name)
		}
	}
	return nil
}

// effectiveProps is what SHOW CREATE TABLE prints: the written properties
// plus the defaults Doris fills in.
func effectiveProps(t *table) map[string]string {
	out := make(map[string]string, len(t.def.Properties)+6)
	for k, v := range t.def.Properties {
		out[k] = v
	}
	if t.rowBinlog {
		out[propBinlogEnable] = "true"
		out[propBinlogFormat] = "ROW"
		out[propNeedHist] = strconv.FormatBool(t.needHist)
		out[propTTL] = strconv.FormatInt(t.ttl, 10)
	}
	if t.def.Keys == UniqueKeys {
		out[propMoW] = strconv.FormatBool(t.mow)
	}
	if _, ok := out[propReplication]; !ok {
		out[propReplication] = "1"
	}
	return out
}
