package feapi

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

type schemaProperty struct {
	Name            string `json:"name"`
	Type            string `json:"type"`
	Precision       string `json:"precision,omitempty"`
	Scale           string `json:"scale,omitempty"`
	Comment         string `json:"comment"`
	AggregationType string `json:"aggregation_type"`
}

type schemaData struct {
	KeysType   string           `json:"keysType"`
	Properties []schemaProperty `json:"properties"`
	Status     int              `json:"status"`
}

// schema answers GET /api/[{catalog}/]{db}/{table}/_schema (doris-facts §1.4).
func schema(a *api, w http.ResponseWriter, r *http.Request, _ string) {
	if c := r.PathValue("catalog"); c != "" && c != "internal" {
		fail(w, fmt.Errorf("catalog %s does not exist or does not support _schema", c))
		return
	}
	db, table := r.PathValue("db"), r.PathValue("table")
	info, err := a.cfg.Backend.Table(db, table)
	if err != nil {
		fail(w, fmt.Errorf("schema of %s.%s: %w", db, table, err))
		return
	}
	ok(w, schemaOf(info.Def))
}

func schemaOf(def storage.TableDef) schemaData {
	d := schemaData{KeysType: string(def.Keys), Properties: make([]schemaProperty, 0, len(def.Columns)), Status: http.StatusOK}
	for _, c := range def.Columns {
		p := schemaProperty{Name: c.Name, Type: c.Type.SchemaName(), Comment: c.Comment}
		if c.Type.Kind == storage.Decimal {
			p.Precision = strconv.Itoa(c.Type.Precision)
			p.Scale = strconv.Itoa(c.Type.Scale)
		}
		if def.Keys == "UNIQUE_KEYS" && !c.Key {
			p.AggregationType = "REPLACE"
		}
		d.Properties = append(d.Properties, p)
	}
	return d
}
