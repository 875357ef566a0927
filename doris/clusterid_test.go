package doris

import "testing"

func TestClusterIDFromFrontends(t *testing.T) {
	parse := func(body string) *StatementResult {
		res, err := ParseStatementResponse([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	meta := `[{"name":"Name"},{"name":"clusterid"}]`
	for body, want := range map[string]string{
		resultSet(meta, `[["fe1","1846299834"],["fe2",1846299834]]`): "1846299834",
		resultSet(meta, `[["fe1"," 7 "]]`):                           "7",
	} {
		got, err := ClusterIDFromFrontends(parse(body))
		if err != nil || got != want {
			t.Errorf("%s: got %q, %v; want %q", body, got, err, want)
		}
	}
	for body, want := range map[string]string{
		resultSet(`[{"name":"Name"}]`, `[["fe1"]]`):  "show frontends has no ClusterId column",
		resultSet(meta, `[]`):                        "show frontends returned no row, so no ClusterId",
		resultSet(meta, `[["fe1",null]]`):            `show frontends row 1: ClusterId must be a positive integer; got ""`,
		resultSet(meta, `[["fe1","0"]]`):             `show frontends row 1: ClusterId must be a positive integer; got "0"`,
		resultSet(meta, `[["fe1","x1"]]`):            `show frontends row 1: ClusterId must be a positive integer; got "x1"`,
		resultSet(meta, `[["fe1","9999999999"]]`):    `show frontends row 1: ClusterId must be a positive integer; got "9999999999"`,
		resultSet(meta, `[["fe1","5"],["fe2"]]`):     `show frontends row 2: ClusterId must be a positive integer; got ""`,
		resultSet(meta, `[["fe1","5"],["fe2","6"]]`): "show frontends rows disagree on ClusterId (5 and 6): the FEs do not belong to one cluster",
	} {
		if _, err := ClusterIDFromFrontends(parse(body)); err == nil || err.Error() != want {
			t.Errorf("%s: want %q, got %v", body, want, err)
		}
	}
}
