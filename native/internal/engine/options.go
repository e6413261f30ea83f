package engine

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"dalkit/native/internal/planted"
	"dalkit/native/internal/postgres"
)

// redactURL hides the password of a URL shown in a message.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			return u.Redacted()
		}
	}
	if at := strings.LastIndexByte(s, '@'); at >= 0 {
		return "xxxxx" + s[at:]
	}
	return s
}

// Options are a handle's settings, parsed from dal_open's option string.
type Options struct {
	BusyTimeoutMs    int
	MaxReaders       int
	StmtCache        int
	MaxRequestBytes  int
	MaxResponseBytes int
	MaxQueryMs       int // 0: no limit
	MaxDatabases     int
	Synchronous      string
	PlantLeak        string // "", "go_cmem", "go_heap", "sqlite_stmt", "goroutine" or "connection"
	PlantLeakBytes   int    // the byte plants: bytes per query
	PlantLeakEvery   int    // goroutine and connection: queries per leaked object
	PoolSize         int    // PostgreSQL: connections to each server
	ConnectTimeoutMs int    // PostgreSQL: one connection attempt
	Replicas         string // PostgreSQL: read replicas' URLs, separated by |
	ReadPrimary      int    // PostgreSQL: 1 = the primary takes a turn at reads too

	given optionSet // the keys the option string set, for checkBackend
}

// optionSet is a set of option keys, one bit per index in optionKeys.
type optionSet uint32

// optionKeys are every option, in dal.h's order.
var optionKeys = []string{
	"busy_timeout_ms", "max_readers", "stmt_cache", "max_request_bytes", "max_response_bytes",
	"max_query_ms", "max_databases", "synchronous", "plant_leak", "plant_leak_bytes",
	"pool_size", "connect_timeout_ms", "replicas", "read_primary", "plant_leak_every",
}

func (s optionSet) has(key string) bool {
	for i, k := range optionKeys {
		if k == key {
			return s&(1<<i) != 0
		}
	}
	return false
}

func (s *optionSet) add(key string) {
	for i, k := range optionKeys {
		if k == key {
			*s |= 1 << i
		}
	}
}

// sqliteOnly and postgresOnly are the options of one backend: the other
// refuses them instead of ignoring them, so that a setting never silently
// does nothing.
var (
	sqliteOnly   = []string{"busy_timeout_ms", "max_readers", "max_databases", "synchronous"}
	postgresOnly = []string{"pool_size", "connect_timeout_ms", "replicas", "read_primary"}
)

// checkBackend refuses the options that do not apply to the backend.
func (o *Options) checkBackend(postgres bool) error {
	other, this, that := postgresOnly, "a SQLite data directory", "PostgreSQL URLs"
	if postgres {
		other, this, that = sqliteOnly, "a PostgreSQL URL", "SQLite data directories"
	}
	for _, k := range other {
		if o.given.has(k) {
			return errorf(EOptions, fmt.Sprintf("option %s does not apply to %s: it is an option of %s (dal.h, OPEN)", k, this, that))
		}
	}
	if postgres && o.PlantLeak == "sqlite_stmt" {
		return errorf(EOptions, "option plant_leak=sqlite_stmt needs a SQLite data directory (it leaks SQLite statements); use go_cmem or go_heap")
	}
	if !postgres && o.PlantLeak == "connection" {
		return errorf(EOptions, "option plant_leak=connection needs a PostgreSQL URL (it leaks server connections)")
	}
	return nil
}

// Defaults and bounds, documented in dal.h and docs/protocol.md.
const (
	defaultMaxDatabases     = 64
	defaultMaxResponseBytes = 64 << 20
	defaultMaxQueryMs       = 30000
	// defaultPlantLeakBytes is what plant_leak_bytes absent or 0 means; the
	// shim's own plant (dal-shim/src/planted_leak.hpp) uses the same rule.
	defaultPlantLeakBytes = 16
)

// DefaultOptions are documented in dal.h.
func DefaultOptions() Options {
	return Options{
		BusyTimeoutMs:    5000,
		MaxReaders:       8,
		StmtCache:        64,
		MaxRequestBytes:  16 << 20,
		MaxResponseBytes: defaultMaxResponseBytes,
		MaxQueryMs:       defaultMaxQueryMs,
		MaxDatabases:     defaultMaxDatabases,
		Synchronous:      "normal",
		PoolSize:         8,
		ConnectTimeoutMs: 5000,
	}
}

type intOption struct {
	field    func(*Options) *int
	min, max int
}

var intOptions = map[string]intOption{
	"busy_timeout_ms":    {func(o *Options) *int { return &o.BusyTimeoutMs }, 0, 600000},
	"max_readers":        {func(o *Options) *int { return &o.MaxReaders }, 1, 256},
	"stmt_cache":         {func(o *Options) *int { return &o.StmtCache }, 0, 4096},
	"max_request_bytes":  {func(o *Options) *int { return &o.MaxRequestBytes }, 64, 1 << 30},
	"max_response_bytes": {func(o *Options) *int { return &o.MaxResponseBytes }, 64, 1 << 30},
	"max_query_ms":       {func(o *Options) *int { return &o.MaxQueryMs }, 0, 86400000},
	"max_databases":      {func(o *Options) *int { return &o.MaxDatabases }, 1, 4096},
	"plant_leak_bytes":   {func(o *Options) *int { return &o.PlantLeakBytes }, 0, 1 << 20},
	"plant_leak_every":   {func(o *Options) *int { return &o.PlantLeakEvery }, 0, 1 << 20},
	"pool_size":          {func(o *Options) *int { return &o.PoolSize }, 1, 1024},
	"connect_timeout_ms": {func(o *Options) *int { return &o.ConnectTimeoutMs }, 1, 600000},
	"read_primary":       {func(o *Options) *int { return &o.ReadPrimary }, 0, 1},
}

// isOptionSpace is the whitespace the grammar refuses next to keys and
// values: the same set as the shim's parser (dal-shim/common/kv_options.hpp).
func isOptionSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// ParseOptions parses dal_open's option string. The grammar is dal.h's, and
// the shim's parser implements the same one, so a string means the same
// thing on both sides:
//
//	options := item { sep item }     sep := ';' | ','
//	item    := "" | key '=' value
//
// Empty items are skipped. A key holds no whitespace; a value may not begin
// or end with whitespace (a stray space is usually a quoting mistake, and
// trimming it silently would accept what the shim refuses). A key given
// twice is an error, never "last wins".
func ParseOptions(s string) (Options, error) {
	o := DefaultOptions()
	var seen []string // a handful of keys: a slice beats a map
	for _, item := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' }) {
		key, val, ok := strings.Cut(item, "=")
		if !ok {
			return o, errorf(EOptions, fmt.Sprintf("option '%s' has no value; expected key=value", item))
		}
		if key == "" {
			return o, errorf(EOptions, fmt.Sprintf("option '%s' has no key; expected key=value", item))
		}
		if strings.IndexFunc(key, func(r rune) bool { return r < 0x80 && isOptionSpace(byte(r)) }) >= 0 {
			return o, errorf(EOptions, fmt.Sprintf("option '%s': whitespace in or around the key", item))
		}
		if val != "" && (isOptionSpace(val[0]) || isOptionSpace(val[len(val)-1])) {
			return o, errorf(EOptions, fmt.Sprintf("option '%s': whitespace around the value", item))
		}
		if slices.Contains(seen, key) {
			return o, errorf(EOptions, fmt.Sprintf("option '%s' given twice", key))
		}
		seen = append(seen, key)
		if err := o.set(key, val); err != nil {
			return o, err
		}
		o.given.add(key)
	}
	if err := o.settlePlant(); err != nil {
		return o, err
	}
	return o, nil
}

// settlePlant checks that the plant's size option is the one of its kind
// (bytes for the byte plants, an interval for the counted ones: a size that
// does not apply is refused, never ignored) and fills in its default.
func (o *Options) settlePlant() error {
	counted := planted.IsCounted(o.PlantLeak)
	if o.given.has("plant_leak_bytes") && counted {
		return errorf(EOptions, fmt.Sprintf("option plant_leak_bytes does not apply to plant_leak=%q: the goroutine and connection plants take plant_leak_every (queries per leaked object)", o.PlantLeak))
	}
	if o.given.has("plant_leak_every") && !counted {
		return errorf(EOptions, fmt.Sprintf("option plant_leak_every does not apply to plant_leak=%q: it is for the goroutine and connection plants (the others take plant_leak_bytes)", o.PlantLeak))
	}
	switch {
	case counted && o.PlantLeakEvery == 0:
		o.PlantLeakEvery = planted.DefaultEvery(o.PlantLeak)
	case o.PlantLeak != "" && !counted && o.PlantLeakBytes == 0:
		o.PlantLeakBytes = defaultPlantLeakBytes
	}
	return nil
}

// set applies one key=value pair.
func (o *Options) set(key, val string) error {
	if io, found := intOptions[key]; found {
		n, err := strconv.Atoi(val)
		if err != nil || n < io.min || n > io.max {
			return errorf(EOptions, fmt.Sprintf("option %s=%q: expected an integer from %d to %d", key, val, io.min, io.max))
		}
		*io.field(o) = n
		return nil
	}
	switch key {
	case "synchronous":
		switch strings.ToLower(val) {
		case "off", "normal", "full":
			o.Synchronous = strings.ToLower(val)
		default:
			return errorf(EOptions, fmt.Sprintf("option synchronous=%q: expected off, normal or full", val))
		}
	case "replicas":
		// '|' separates the URLs: ',' and ';' separate options, and '|'
		// never appears unescaped in a URL.
		for _, u := range strings.Split(val, "|") {
			if !postgres.IsURL(u) {
				return errorf(EOptions, fmt.Sprintf("option replicas: %q is not a postgres:// or postgresql:// URL; separate replicas with |", redactURL(u)))
			}
		}
		o.Replicas = val
	case "plant_leak":
		switch val {
		case "", "none":
			o.PlantLeak = ""
		case "go_cmem", "go_heap", "sqlite_stmt", "goroutine", "connection":
			o.PlantLeak = val
		default:
			return errorf(EOptions, fmt.Sprintf("option plant_leak=%q: expected go_cmem, go_heap, sqlite_stmt, goroutine or connection", val))
		}
	default:
		return errorf(EOptions, fmt.Sprintf("unknown option %q; valid options: %s", key, strings.Join(optionKeys, ", ")))
	}
	return nil
}
