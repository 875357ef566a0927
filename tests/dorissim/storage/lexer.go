package storage

import (
	"fmt"
	"strings"
)

// TokKind classifies a lexed token.
type TokKind int

// Token kinds. Space and comment tokens are kept so that a rewrite can
// splice the source text without touching literals or comments.
const (
	TokSpace TokKind = iota
	TokComment
	TokWord        // bare identifier or keyword
	TokQuotedIdent // `quoted identifier`
	TokString      // 'string' or "string"
	TokNumber
	TokPunct
)

// Token is one lexed token: its kind and its raw text src[Start:End].
type Token struct {
	Kind       TokKind
	Raw        string
	Start, End int
}

// Lex splits SQL into tokens the way Doris's lexer does (the Nereids
// DorisLexer.g4 in apache/doris, fe/fe-core/src/main/antlr4/...):
//   - SIMPLE_COMMENT is '--' ('\\\n' | ~[\r\n])* '\r'? '\n'?: `--` starts a
//     comment with or without a following space, and a backslash right
//     before the newline carries it onto the next line.
//   - IDENTIFIER is (LETTER | DIGIT | '_')+ with LETTER taking [a-zA-Z$_] and
//     every character above U+007F, letter or not. So every byte above 0x7F
//     is a word byte, also where it starts a token: a stray 0x85 or 0xA0
//     (spaces in Latin-1) is not whitespace, as the FE decodes it to U+FFFD,
//     a LETTER.
//   - WS is [ \r\n\t]; the legacy sql_scanner.flex also skips \f, kept here.
//   - A string literal escapes its quote by doubling it or with a
//     backslash; a backquoted identifier only by doubling the backtick.
//
// `#` line comments are not in Doris's grammar; the simulator accepts them
// as MySQL does, as it always has.
func Lex(src string) ([]Token, error) {
	var toks []Token
	for i := 0; i < len(src); {
		kind, end, err := scanToken(src, i)
		if err != nil {
			return nil, err
		}
		toks = append(toks, Token{Kind: kind, Raw: src[i:end], Start: i, End: end})
		i = end
	}
	return toks, nil
}

func scanToken(s string, i int) (TokKind, int, error) {
	c := s[i]
	switch {
	case isSpaceByte(c):
		j := i
		for j < len(s) && isSpaceByte(s[j]) {
			j++
		}
		return TokSpace, j, nil
	case c == '/' && strings.HasPrefix(s[i:], "/*"):
		j := strings.Index(s[i+2:], "*/")
		if j < 0 {
			return 0, 0, fmt.Errorf("unterminated comment at offset %d", i)
		}
		return TokComment, i + 2 + j + 2, nil
	case c == '-' && strings.HasPrefix(s[i:], "--"):
		return TokComment, lineCommentEnd(s, i+2, true), nil
	case c == '#':
		return TokComment, lineCommentEnd(s, i+1, false), nil
	case c == '\'' || c == '"':
		end, err := scanQuoted(s, i, true)
		return TokString, end, err
	case c == '`':
		end, err := scanQuoted(s, i, false)
		return TokQuotedIdent, end, err
	case isDigitByte(c):
		j := i
		for j < len(s) && (isWordByte(s[j]) || s[j] == '.') {
			j++
		}
		return TokNumber, j, nil
	case isWordByte(c):
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		return TokWord, j, nil
	default:
		return TokPunct, i + 1, nil
	}
}

// lineCommentEnd returns the end of a line comment whose text starts at j:
// past the line break, which a backslash continues when continued is set.
func lineCommentEnd(s string, j int, continued bool) int {
	for j < len(s) && s[j] != '\r' && s[j] != '\n' {
		if continued && s[j] == '\\' && j+1 < len(s) && s[j+1] == '\n' {
			j += 2
			continue
		}
		j++
	}
	if j < len(s) && s[j] == '\r' {
		j++
	}
	if j < len(s) && s[j] == '\n' {
		j++
	}
	return j
}

// scanQuoted finds the end of a quoted token; a doubled quote is an escaped
// quote, and in string literals a backslash escapes the next byte.
func scanQuoted(s string, i int, backslash bool) (int, error) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case backslash && s[j] == '\\':
			j++
		case s[j] == q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("unterminated quoted text at offset %d", i)
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }
func isWordByte(c byte) bool {
	return c == '_' || c == '$' || isDigitByte(c) || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80
}

// Significant drops whitespace and comments.
func Significant(toks []Token) []Token {
	out := make([]Token, 0, len(toks))
	for _, t := range toks {
		if t.Kind != TokSpace && t.Kind != TokComment {
			out = append(out, t)
		}
	}
	return out
}

// Ident is the identifier a word or quoted-identifier token names.
func (t Token) Ident() string {
	if t.Kind == TokQuotedIdent {
		return strings.ReplaceAll(t.Raw[1:len(t.Raw)-1], "``", "`")
	}
	return t.Raw
}

// Str decodes a string literal token.
func (t Token) Str() string {
	q := t.Raw[0]
	body := t.Raw[1 : len(t.Raw)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == q && i+1 < len(body) && body[i+1] == q:
			b.WriteByte(q)
			i++
		case c == '\\' && i+1 < len(body):
			i++
			writeEscaped(&b, body[i])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Text is the token's value: a name for identifiers, the decoded text for
// strings, the raw text otherwise.
func (t Token) Text() string {
	switch t.Kind {
	case TokQuotedIdent:
		return t.Ident()
	case TokString:
		return t.Str()
	}
	return t.Raw
}

// IsWord reports whether t is the bare word w (case-insensitive).
func (t Token) IsWord(w string) bool { return t.Kind == TokWord && strings.EqualFold(t.Raw, w) }

// IsPunct reports whether t is the punctuation p.
func (t Token) IsPunct(p string) bool { return t.Kind == TokPunct && t.Raw == p }

// writeEscaped decodes a backslash escape as the FE does
// (LogicalPlanBuilderAssistant.escapeBackSlash): \n \t \r \b \0 \Z, and
// \_ \% keep their backslash for LIKE; any other byte stands for itself.
func writeEscaped(b *strings.Builder, c byte) {
	switch c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case 'b':
		b.WriteByte('\b')
	case '0':
		b.WriteByte(0)
	case 'Z':
		b.WriteByte(032)
	case '_', '%':
		b.WriteByte('\\')
		b.WriteByte(c)
	default:
		b.WriteByte(c)
	}
}

// StripLeadingComments removes leading whitespace and comments.
func StripLeadingComments(s string) (string, error) {
	for {
		t := strings.TrimLeft(s, " \t\r\n\f")
		if t == "" {
			return t, nil
		}
		kind, end, err := scanToken(t, 0)
		if err != nil {
			return "", err
		}
		if kind != TokComment {
			return t, nil
		}
		s = t[end:]
	}
}

// QuoteString renders s as a single-quoted SQL literal that Str decodes
// back to s.
func QuoteString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// QuoteIdent renders s as a backticked identifier.
func QuoteIdent(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}
