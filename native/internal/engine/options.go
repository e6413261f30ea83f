package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// Options are a handle's settings, parsed from dal_open's option string.
type Options struct {
	BusyTimeoutMs   int
	MaxReaders      int
	StmtCache       int
	MaxRequestBytes int
	Synchronous     string
	PlantLeak       string // "", "go_cmem", "go_heap" or "sqlite_stmt"
	PlantLeakBytes  int
}

// DefaultOptions are documented in dal.h.
func DefaultOptions() Options {
	return Options{
		BusyTimeoutMs:   5000,
		MaxReaders:      8,
		StmtCache:       64,
		MaxRequestBytes: 16 << 20,
		Synchronous:     "normal",
	}
}

type intOption struct {
	field    func(*Options) *int
	min, max int
}

var intOptions = map[string]intOption{
	"busy_timeout_ms":   {func(o *Options) *int { return &o.BusyTimeoutMs }, 0, 600000},
	"max_readers":       {func(o *Options) *int { return &o.MaxReaders }, 1, 256},
	"stmt_cache":        {func(o *Options) *int { return &o.StmtCache }, 0, 4096},
	"max_request_bytes": {func(o *Options) *int { return &o.MaxRequestBytes }, 64, 1 << 30},
	"plant_leak_bytes":  {func(o *Options) *int { return &o.PlantLeakBytes }, 0, 1 << 20},
}

var validKeys = "busy_timeout_ms, max_readers, stmt_cache, max_request_bytes, synchronous, plant_leak, plant_leak_bytes"

// ParseOptions parses "key=value" pairs separated by ';' or ','.
func ParseOptions(s string) (Options, error) {
	o := DefaultOptions()
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' }) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, val, ok := strings.Cut(part, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok {
			return o, errorf(EOptions, fmt.Sprintf("option %q has no value; expected key=value", part))
		}
		if io, found := intOptions[key]; found {
			n, err := strconv.Atoi(val)
			if err != nil || n < io.min || n > io.max {
				return o, errorf(EOptions, fmt.Sprintf("option %s=%q: expected an integer from %d to %d", key, val, io.min, io.max))
			}
			*io.field(&o) = n
			continue
		}
		switch key {
		case "synchronous":
			switch strings.ToLower(val) {
			case "off", "normal", "full":
				o.Synchronous = strings.ToLower(val)
			default:
				return o, errorf(EOptions, fmt.Sprintf("option synchronous=%q: expected off, normal or full", val))
			}
		case "plant_leak":
			switch val {
			case "", "none":
				o.PlantLeak = ""
			case "go_cmem", "go_heap", "sqlite_stmt":
				o.PlantLeak = val
			default:
				return o, errorf(EOptions, fmt.Sprintf("option plant_leak=%q: expected go_cmem, go_heap or sqlite_stmt", val))
			}
		default:
			return o, errorf(EOptions, fmt.Sprintf("unknown option %q; valid options: %s", key, validKeys))
		}
	}
	if o.PlantLeak != "" && o.PlantLeakBytes == 0 {
		o.PlantLeakBytes = 16
	}
	return o, nil
}
