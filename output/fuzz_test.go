package output

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParseLoadResponse: any body either fails to parse or yields a result
// with a Status whose outcome is one of the four.
func FuzzParseLoadResponse(f *testing.F) {
	for _, s := range []string{
		`{"TxnId":1,"Label":"l","Status":"Success","Message":"OK"}`,
		`{"TxnId":-1,"Label":"l","Status":"Label Already Exists","ExistingJobStatus":"RUNNING"}`,
		`<html>`, `{"Status":""}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := parseLoadResponse(body)
		if err != nil {
			return
		}
		if r.Status == "" {
			t.Fatal("parsed a result without Status")
		}
		if o := r.classify(); o < outcomeLoaded || o > outcomeFailed {
			t.Fatalf("outcome %d", o)
		}
		_ = r.failure("db.t", "l").Error()
	})
}

// FuzzParseLoadState: parsed states are never empty.
func FuzzParseLoadState(f *testing.F) {
	for _, s := range []string{`{"msg":"success","code":0,"data":"VISIBLE","count":0}`, `{"code":1,"msg":"x"}`, `{"data":5}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if st, err := parseLoadState(body); err == nil && st == "" {
			t.Fatal("empty state parsed")
		}
		_, _ = parseTxnResponse(body)
	})
}

// FuzzAppendJSONRow: a JSON object stays one valid JSON line after the
// delete sign and sequence value are spliced in.
func FuzzAppendJSONRow(f *testing.F) {
	for _, s := range []string{`{"id":1}`, `{}`, "{\n \"a\": [1,\n2]\n}", ` {"s":"}"} `, `[1]`, `{"_seq":7,"a":1}`, `{"_s\u0065q":7}`} {
		f.Add([]byte(s), true, true)
	}
	f.Fuzz(func(t *testing.T, raw []byte, sign, seq bool) {
		var seqVal []byte
		if seq {
			seqVal = []byte("42")
		}
		var buf bytes.Buffer
		err := appendJSONRow(&buf, raw, sign, '1', "_seq", []byte(`"_seq"`), seqVal)
		var obj map[string]any
		isObj := json.Unmarshal(raw, &obj) == nil && obj != nil
		if err != nil {
			if isObj {
				t.Fatalf("valid object %q refused: %v", raw, err)
			}
			return
		}
		line := buf.Bytes()
		if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
			t.Fatalf("not one line: %q", line)
		}
		if isObj && !json.Valid(line) {
			t.Fatalf("%q became invalid JSON %q", raw, line)
		}
		if isObj && seq {
			if n := countMembers(t, line, "_seq"); n != 1 {
				t.Fatalf("%q became %q with %d _seq members, want 1", raw, line, n)
			}
		}
	})
}

// countMembers counts the top-level members called name, duplicates included.
func countMembers(t *testing.T, line []byte, name string) int {
	dec := json.NewDecoder(bytes.NewReader(line))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if k == name {
			n++
		}
	}
	return n
}
