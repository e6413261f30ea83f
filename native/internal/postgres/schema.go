package postgres

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"dalkit/native/internal/dbname"
)

// A request's db names a schema of the handle's database, under the same
// rules as a SQLite file name (internal/dbname), plus PostgreSQL's own:
// at most 63 bytes (a longer name is truncated by the server, so two long
// names would silently be one schema) and not pg_... (reserved for the
// system's schemas, whose catalogs a request must not reach).

// schema is one db name's schema.
type schema struct {
	name    string      // the db name, which is the schema's name
	quoted  string      // the identifier, double-quoted for SQL
	created atomic.Bool // CREATE SCHEMA IF NOT EXISTS has run on the primary
}

// schemaSet maps db names to schemas. It only remembers which names were
// checked and created; nothing is open per schema, so past maxSchemas it
// simply forgets them all (a schema is then created "if not exists" again
// on its next use).
type schemaSet struct {
	mu     sync.RWMutex
	byName map[string]*schema
}

const maxSchemas = 4096

func (s *schemaSet) get(name []byte) (*schema, error) {
	s.mu.RLock()
	sc := s.byName[string(name)] // no allocation: the compiler elides the conversion
	s.mu.RUnlock()
	if sc != nil {
		return sc, nil
	}
	if err := validateSchemaName(name); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sc = s.byName[string(name)]; sc != nil {
		return sc, nil
	}
	if s.byName == nil || len(s.byName) >= maxSchemas {
		s.byName = make(map[string]*schema)
	}
	sc = &schema{name: string(name), quoted: pgx.Identifier{string(name)}.Sanitize()}
	s.byName[string(name)] = sc
	return sc, nil
}

// maxIdentifier is NAMEDATALEN - 1.
const maxIdentifier = 63

func validateSchemaName(name []byte) error {
	if err := dbname.Validate(name); err != nil {
		return err
	}
	if len(name) > maxIdentifier {
		return dbname.Invalid(string(name), fmt.Sprintf("a PostgreSQL schema name has at most %d bytes, got %d (the server would truncate it)", maxIdentifier, len(name)))
	}
	if strings.HasPrefix(string(name), "pg_") || string(name) == "information_schema" {
		return dbname.Invalid(string(name), "names starting with \"pg_\" and information_schema are PostgreSQL's system schemas")
	}
	return nil
}
