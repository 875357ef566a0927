package rowjson

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

func mustMarshal(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAppendStringEscapes(t *testing.T) {
	cases := map[string]string{
		"":                `""`,
		"plain":           `"plain"`,
		"q\"b\\":          `"q\"b\\"`,
		"\n\r\t\b\f":      `"\n\r\t\b\f"`,
		"\x00\x1f\x7f":    `"\u0000\u001f` + "\x7f" + `"`,
		"a\u2028b\u2029c": `"a\u2028b\u2029c"`,
		"bad\xffutf8\xc3": `"bad\ufffdutf8\ufffd"`,
		"日本語 ✓ 😀":         `"日本語 ✓ 😀"`,
		"<html>&":         `"<html>&"`,
	}
	for in, want := range cases {
		if got := string(appendString(nil, in)); got != want {
			t.Errorf("appendString(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestAppendStringRoundTrip decodes random strings through encoding/json:
// the decoded text must equal the input with invalid UTF-8 replaced.
func TestAppendStringRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "\"", "\\", "\x00", "\x1f", "\n", "é", "\u2028", "\u2029", "😀", "\xff", "\xe2\x82", "/", "<", "\x7f"}
	for n := 0; n < 5000; n++ {
		var sb strings.Builder
		for k := rng.Intn(20); k > 0; k-- {
			if rng.Intn(3) == 0 {
				sb.WriteByte(byte(rng.Intn(256)))
			} else {
				sb.WriteString(alphabet[rng.Intn(len(alphabet))])
			}
		}
		in := sb.String()
		out := appendString(nil, in)
		if !json.Valid(out) || !utf8.Valid(out) {
			t.Fatalf("appendString(%q) = %q is not valid UTF-8 JSON", in, out)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("unmarshal %q: %v", out, err)
		}
		if want := strings.ToValidUTF8(in, "\ufffd"); back != replaceEachInvalid(in) {
			t.Fatalf("round trip of %q = %q, want %q (ToValidUTF8 %q)", in, back, replaceEachInvalid(in), want)
		}
		if back != decodeWithStdlib(t, in) {
			t.Fatalf("round trip of %q = %q, encoding/json gives %q", in, back, decodeWithStdlib(t, in))
		}
	}
}

// replaceEachInvalid replaces every invalid byte with U+FFFD, as
// encoding/json does (strings.ToValidUTF8 would merge runs).
func replaceEachInvalid(s string) string {
	var sb strings.Builder
	for _, r := range s {
		sb.WriteRune(r)
	}
	return sb.String()
}

func decodeWithStdlib(t *testing.T, s string) string {
	var back string
	if err := json.Unmarshal([]byte(mustMarshal(t, s)), &back); err != nil {
		t.Fatal(err)
	}
	return back
}
