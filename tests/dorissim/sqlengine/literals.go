package sqlengine

import (
	"encoding/json"
	"fmt"
	"strings"
)

// rewriteCollectionLiterals turns Doris array and map literals such as
// [1, 2], ['a', NULL] and {'k': 1} into JSON string literals, which GMS can
// parse and the table editor converts to ARRAY/MAP values. Brackets are not
// valid MySQL outside quotes, so no GMS-valid statement is changed.
func rewriteCollectionLiterals(query string) (string, error) {
	toks, err := tokenize(query)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	changed := false
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if !isPunct(t, "[") && !(isPunct(t, "{") && looksLikeMapLiteral(toks, i)) {
			b.WriteString(t.raw)
			continue
		}
		js, next, err := collectionJSON(toks, i)
		if err != nil {
			return "", err
		}
		b.WriteString(quoteString(js))
		i = next - 1
		changed = true
	}
	if !changed {
		return query, nil
	}
	return b.String(), nil
}

func looksLikeMapLiteral(toks []token, i int) bool {
	sig := significant(toks[i+1:])
	if len(sig) == 0 {
		return false
	}
	if isPunct(sig[0], "}") {
		return true
	}
	return len(sig) > 1 && (sig[0].kind == tkString || sig[0].kind == tkNumber) && isPunct(sig[1], ":")
}

// collectionJSON converts the literal starting at toks[i] to JSON text and
// returns the index after its closing bracket.
func collectionJSON(toks []token, i int) (string, int, error) {
	var b strings.Builder
	var stack []string
	key := false // next scalar is a map key, which JSON needs as a string
	for ; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tkSpace || t.kind == tkComment:
			continue
		case isPunct(t, "["), isPunct(t, "{"):
			stack = append(stack, t.raw)
			key = t.raw == "{"
			b.WriteString(t.raw)
			continue
		case isPunct(t, "]"), isPunct(t, "}"):
			if len(stack) == 0 {
				return "", 0, fmt.Errorf("unbalanced %q in collection literal", t.raw)
			}
			stack = stack[:len(stack)-1]
			b.WriteString(t.raw)
			if len(stack) == 0 {
				return b.String(), i + 1, nil
			}
			continue
		case isPunct(t, ","):
			key = len(stack) > 0 && stack[len(stack)-1] == "{"
			b.WriteByte(',')
			continue
		case isPunct(t, ":"):
			key = false
			b.WriteByte(':')
			continue
		}
		if err := writeJSONScalar(&b, t, key); err != nil {
			return "", 0, err
		}
		key = false
	}
	return "", 0, fmt.Errorf("unterminated collection literal")
}

func writeJSONScalar(b *strings.Builder, t token, asKey bool) error {
	var v any
	switch {
	case t.kind == tkString:
		v = stringValue(t)
	case t.kind == tkNumber && asKey:
		v = t.raw
	case t.kind == tkNumber || isPunct(t, "-"):
		b.WriteString(t.raw)
		return nil
	case isWord(t, "null"):
		v = nil
	case isWord(t, "true"), isWord(t, "false"):
		v = strings.EqualFold(t.raw, "true")
	default:
		return fmt.Errorf("unsupported value %q in collection literal", t.raw)
	}
	js, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b.Write(js)
	return nil
}
