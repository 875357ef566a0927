package sqlengine

import "testing"

// SET time_zone takes any client text: it is rejected with Doris's error or
// standardized to a value that loads, never a panic.
func FuzzStandardizeTimeZone(f *testing.F) {
	for _, s := range []string{"+8:00", "-12:00", "+14:01", "Asia/Shanghai", "cst", "GMT+8:00", "UTC-5:00", "Z", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		std, err := standardizeTimeZone(v)
		if err != nil {
			return
		}
		if _, err := loadZone(std); err != nil {
			t.Fatalf("standardizeTimeZone(%q) = %q, which does not load: %v", v, std, err)
		}
	})
}
