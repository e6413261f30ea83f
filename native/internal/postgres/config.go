package postgres

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"dalkit/native/internal/status"
)

// Config is a PostgreSQL handle's settings: dal_open's URL and the options
// of dal.h that apply to this backend.
type Config struct {
	URL              string   // postgres://... or postgresql://...
	PoolSize         int      // pool_size: connections to the server at most
	ConnectTimeoutMs int      // connect_timeout_ms: one connection attempt
	MaxQueryMs       int      // max_query_ms: statement_timeout; 0 = none
	StmtCache        int      // stmt_cache: prepared statements kept per connection
	MaxResponseBytes int      // max_response_bytes
	Replicas         []string // replicas: read replicas' URLs
	ReadPrimary      bool     // read_primary=1: the primary takes its turn at reads too
}

// IsURL reports whether dal_open's first argument names a PostgreSQL
// server rather than a data directory.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// secrets are the strings a message about this URL must never contain: the
// password, from the URL's user info or its password parameter. They are
// read with net/url, not from pgx's parsed config, so that a URL pgx
// cannot parse is still scrubbed.
type secrets []string

func secretsOf(rawURL string) secrets {
	var s secrets
	u, err := url.Parse(rawURL)
	if err != nil {
		// Not even a URL: scrub whatever sits between "user:" and "@".
		if at := strings.LastIndexByte(rawURL, '@'); at > 0 {
			head := rawURL[:at]
			if colon := strings.LastIndexByte(head, ':'); colon >= 0 && colon+1 < len(head) {
				s = append(s, head[colon+1:])
			}
		}
		return s
	}
	if p, ok := u.User.Password(); ok && p != "" {
		s = append(s, p, url.PathEscape(p), url.QueryEscape(p))
	}
	if p := u.Query().Get("password"); p != "" {
		s = append(s, p, url.QueryEscape(p))
	}
	return s
}

// scrub replaces every secret in msg.
func (s secrets) scrub(msg string) string {
	for _, p := range s {
		if p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return msg
}

// poolConfig turns the settings into pgxpool's, with the hooks that keep
// the per-connection state (conn.go) and the counters.
func (c *Config) poolConfig(url string, sec secrets) (*pgxpool.Config, error) {
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, status.Errorf(status.EOptions, "invalid PostgreSQL URL: "+sec.scrub(err.Error()))
	}
	pc.MaxConns = int32(c.PoolSize)
	pc.MinConns = 0
	pc.ConnConfig.ConnectTimeout = time.Duration(c.ConnectTimeoutMs) * time.Millisecond
	// The DAL prepares and caches its own statements (conn.go); pgx's
	// caches serve its higher-level API, which the DAL does not use.
	pc.ConnConfig.StatementCacheCapacity = 0
	pc.ConnConfig.DescriptionCacheCapacity = 0
	rp := pc.ConnConfig.RuntimeParams
	// statement_timeout is max_query_ms, enforced by the server: a
	// statement past it is cancelled and rolled back there.
	rp["statement_timeout"] = strconv.Itoa(c.MaxQueryMs)
	if _, ok := rp["application_name"]; !ok {
		rp["application_name"] = "dalkit"
	}
	// The response encoders pass text on as MessagePack str, which must be
	// UTF-8.
	rp["client_encoding"] = "UTF8"
	pc.AfterConnect = afterConnect(c.StmtCache)
	pc.BeforeClose = beforeClose
	return pc, nil
}

// where names the server of a config for messages: host:port/database.
func where(pc *pgxpool.Config) string {
	cc := pc.ConnConfig
	return fmt.Sprintf("%s:%d/%s", cc.Host, cc.Port, cc.Database)
}
