package doris

import (
	"slices"
	"testing"
)

// The parsers below read server responses; whatever the bytes, they must
// return an error or a well-formed value, never panic.

func FuzzParseEnvelope(f *testing.F) {
	f.Add([]byte(`{"msg":"success","code":0,"data":{"a":1},"count":0}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		env, err := ParseEnvelope(body)
		if err == nil && (env.Code != 0) != (env.Err() != nil) {
			t.Fatalf("Err() disagrees with code %d", env.Code)
		}
	})
}

func FuzzParseTSOResponse(f *testing.F) {
	f.Add([]byte(tsoBody(1760000000123)))
	f.Fuzz(func(t *testing.T, body []byte) {
		info, err := ParseTSOResponse(body)
		if err != nil {
			return
		}
		if info.PhysicalMs <= 0 || PhysicalMs(info.TSO) != info.PhysicalMs {
			t.Fatalf("inconsistent TSO %+v", info)
		}
	})
}

func FuzzParseStatementResponse(f *testing.F) {
	f.Add([]byte(resultSet(`[{"name":"ArrowFlightSqlPort","type":"CHAR"}]`, `[["29747"]]`)))
	f.Add([]byte(resultSet(`[{"name":"ClusterId","type":"CHAR"}]`, `[["1846299834"],["1846299834"]]`)))
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := ParseStatementResponse(body)
		if err != nil {
			return
		}
		if port, err := FlightSQLPortFromFrontends(res, "127.0.0.1"); err == nil && (port < 1 || port > 65535) {
			t.Fatalf("port %d", port)
		}
		_, _ = CreateTableText(res)
		if id, err := ClusterIDFromFrontends(res); err == nil && (id == "" || id[0] == '0' || id[0] == '-') {
			t.Fatalf("cluster id %q", id)
		}
	})
}

func FuzzParseSchemaResponse(f *testing.F) {
	f.Add([]byte(schemaDoc))
	f.Fuzz(func(t *testing.T, body []byte) {
		s, err := ParseSchemaResponse(body)
		if err != nil {
			return
		}
		for _, c := range s.Columns {
			if c.Precision < 0 || c.Scale < 0 {
				t.Fatalf("negative precision/scale %+v", c)
			}
		}
	})
}

func FuzzParseQueryPlanResponse(f *testing.F) {
	f.Add([]byte(planDoc), 1)
	f.Fuzz(func(t *testing.T, body []byte, perSplit int) {
		plan, err := ParseQueryPlanResponse(body)
		if err != nil {
			return
		}
		ids := plan.TabletIDs()
		if !slices.IsSorted(ids) {
			t.Fatalf("tablets not sorted: %v", ids)
		}
		var seen []int64
		for _, s := range PlanSplits(plan, perSplit%64) {
			if len(s.Tablets) == 0 || len(s.Tablets) > max(perSplit%64, 1) {
				t.Fatalf("split %+v has a bad size", s)
			}
			seen = append(seen, s.Tablets...)
		}
		slices.Sort(seen)
		if !slices.Equal(seen, ids) {
			t.Fatalf("splits cover %v, plan has %v", seen, ids)
		}
	})
}

func FuzzParseShowCreateTable(f *testing.F) {
	f.Add(ordersDDL)
	f.Fuzz(func(t *testing.T, ddl string) {
		p, err := ParseShowCreateTable(ddl)
		if err != nil {
			return
		}
		if len(p.Columns) == 0 || p.TTLSeconds <= 0 {
			t.Fatalf("accepted DDL without columns or TTL: %+v", p)
		}
		for name, prec := range p.DatetimePrecision {
			if prec < 0 || prec > 6 || !slices.ContainsFunc(p.Columns, func(c ColumnDef) bool { return c.Name == name }) {
				t.Fatalf("precision %q=%d", name, prec)
			}
		}
	})
}

func FuzzFirstColumn(f *testing.F) {
	f.Add([]byte(resultSet(`[{"name":"Database","type":"CHAR"}]`, `[["shop"],["odd db"]]`)))
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := ParseStatementResponse(body)
		if err != nil {
			return
		}
		names, err := FirstColumn(res)
		if err == nil && len(names) != len(res.Rows) {
			t.Fatalf("%d names for %d rows", len(names), len(res.Rows))
		}
	})
}
