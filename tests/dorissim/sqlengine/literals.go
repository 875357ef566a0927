package sqlengine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// rewriteCollectionLiterals turns Doris array and map literals such as
// [1, 2], ['a', NULL] and {'k': 1} into JSON string literals, which GMS can
// parse and the table editor converts to ARRAY/MAP values. Brackets are not
// valid MySQL outside quotes, so no GMS-valid statement is changed.
func rewriteCollectionLiterals(query string) (string, error) {
	toks, err := storage.Lex(query)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	changed := false
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if !t.IsPunct("[") && !(t.IsPunct("{") && looksLikeMapLiteral(toks, i)) {
			b.WriteString(t.Raw)
			continue
		}
		js, next, err := collectionJSON(toks, i)
		if err != nil {
			return "", err
		}
		b.WriteString(storage.QuoteString(js))
		i = next - 1
		changed = true
	}
	if !changed {
		return query, nil
	}
	return b.String(), nil
}

func looksLikeMapLiteral(toks []storage.Token, i int) bool {
	sig := storage.Significant(toks[i+1:])
	if len(sig) == 0 {
		return false
	}
	if sig[0].IsPunct("}") {
		return true
	}
	return len(sig) > 1 && (sig[0].Kind == storage.TokString || sig[0].Kind == storage.TokNumber) && sig[1].IsPunct(":")
}

// collectionJSON converts the literal starting at toks[i] to JSON text and
// returns the index after its closing bracket.
func collectionJSON(toks []storage.Token, i int) (string, int, error) {
	var b strings.Builder
	var stack []string
	key := false // next scalar is a map key, which JSON needs as a string
	for ; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.Kind == storage.TokSpace || t.Kind == storage.TokComment:
			continue
		case t.IsPunct("["), t.IsPunct("{"):
			stack = append(stack, t.Raw)
			key = t.Raw == "{"
			b.WriteString(t.Raw)
			continue
		case t.IsPunct("]"), t.IsPunct("}"):
			if len(stack) == 0 {
				return "", 0, fmt.Errorf("unbalanced %q in collection literal", t.Raw)
			}
			stack = stack[:len(stack)-1]
			b.WriteString(t.Raw)
			if len(stack) == 0 {
				return b.String(), i + 1, nil
			}
			continue
		case t.IsPunct(","):
			key = len(stack) > 0 && stack[len(stack)-1] == "{"
			b.WriteByte(',')
			continue
		case t.IsPunct(":"):
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

func writeJSONScalar(b *strings.Builder, t storage.Token, asKey bool) error {
	var v any
	switch {
	case t.Kind == storage.TokString:
		v = t.Str()
	case t.Kind == storage.TokNumber && asKey:
		v = t.Raw
	case t.Kind == storage.TokNumber || t.IsPunct("-"):
		b.WriteString(t.Raw)
		return nil
	case t.IsWord("null"):
		v = nil
	case t.IsWord("true"), t.IsWord("false"):
		v = strings.EqualFold(t.Raw, "true")
	default:
		return fmt.Errorf("unsupported value %q in collection literal", t.Raw)
	}
	js, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b.Write(js)
	return nil
}
