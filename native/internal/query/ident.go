package query

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// maxIdentPart bounds each dot-separated part of an identifier (docs/protocol.md,
// Identifiers); nothing legitimate is longer and it keeps the SQL cache small.
const maxIdentPart = 128

const identRule = "identifiers are name or qualifier.name made of letters, digits, _ and $ (not starting with a digit), at most 128 bytes per part"

// validPart reports whether p is one identifier part: an ASCII letter or _
// followed by ASCII letters, digits, _ or $, where non-ASCII UTF-8 letters
// (and, after the first character, digits) are also accepted.
//
// Everything else is refused rather than escaped: with quotes, brackets,
// whitespace, comment starters, NUL, control and format characters (RTL marks)
// excluded, wrapping a part in double quotes can never end the quoted name
// early, and the SQL text stays free of look-alike tricks.
func validPart(p []byte) bool {
	if len(p) == 0 || len(p) > maxIdentPart {
		return false
	}
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
			case c >= '0' && c <= '9', c == '$':
				if i == 0 {
					return false
				}
			default:
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && n <= 1 { // invalid UTF-8
			return false
		}
		if !unicode.IsLetter(r) && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
		i += n
	}
	return true
}

// validIdent checks name as up to maxParts dot-separated parts.
func validIdent(name []byte, maxParts int) bool {
	dot := bytes.IndexByte(name, '.')
	if dot < 0 {
		return validPart(name)
	}
	return maxParts >= 2 && validPart(name[:dot]) && validPart(name[dot+1:])
}

// identErr explains why name was refused; plain says the position only takes
// an unqualified name (an alias, a Set or Insert column).
func identErr(name []byte, maxParts int) error {
	if maxParts == 1 && bytes.IndexByte(name, '.') >= 0 && validIdent(name, 2) {
		return errorf("invalid identifier %s: a qualifier is not allowed here, use a plain name", q(name))
	}
	return errorf("invalid identifier %s: %s", q(name), identRule)
}

// ident validates name and appends it with every part double-quoted:
// `a` -> `"a"`, `t.a` -> `"t"."a"`. The parts contain no '"', so no escaping
// is needed.
func (b *Builder) ident(name []byte, maxParts int) error {
	if err := b.checkIdent(name, maxParts); err != nil {
		return err
	}
	if dot := bytes.IndexByte(name, '.'); dot >= 0 {
		b.quoted(name[:dot])
		b.sql = append(b.sql, '.')
		b.quoted(name[dot+1:])
		return nil
	}
	b.quoted(name)
	return nil
}

func (b *Builder) quoted(part []byte) {
	b.sql = append(b.sql, '"')
	b.sql = append(b.sql, part...)
	b.sql = append(b.sql, '"')
}
