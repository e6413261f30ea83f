package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"dalkit/native/internal/status"
)

// How a failure reaches the caller (docs/protocol.md, "On PostgreSQL"):
//
//	the server refused a statement (PgError)   error response: its message, SQLSTATE in ec
//	a parameter the DAL will not send          error response, SQLSTATE 42804
//	statement_timeout (SQLSTATE 57014)         call failure DAL_E_LIMIT: the server
//	                                           cancelled the statement and rolled it back
//	no answer in time, connection lost         call failure DAL_E_DATABASE (a read: DAL_E_LIMIT
//	                                           past max_query_ms); a write's outcome is unknown
//	server unreachable, login refused          call failure DAL_E_DATABASE, never the password

const (
	stateQueryCanceled   = "57014"
	stateStalePlan       = "0A000" // feature_not_supported: "cached plan must not change result type"
	stateDuplicateSchema = "42P06"
	stateUniqueViolated  = "23505"
)

// serverError is the server's refusal of a statement, for an error
// response: its message and SQLSTATE.
func serverError(err error) (msg, state string, ok bool) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code != stateQueryCanceled {
		return pe.Message, pe.Code, true
	}
	var mm *mismatch
	if errors.As(err, &mm) {
		return mm.msg, mismatchState, true
	}
	return "", "", false
}

// connectionLost reports whether err is the connection failing (not the
// server refusing a statement, not the call's time running out), and
// whether nothing of the request had been sent yet, so that it may be sent
// again on another connection.
func connectionLost(err error) (lost, unsent bool) {
	var pe *pgconn.PgError
	var mm *mismatch
	if err == nil || errors.As(err, &pe) || errors.As(err, &mm) || errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) {
		return false, false
	}
	return true, pgconn.SafeToRetry(err)
}

func hasState(err error, state string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == state
}

// callFailure is the call failure for an error that is not a statement's
// (serverError said no). write: the request carried a write, whose
// outcome a lost connection leaves unknown.
func (s *server) callFailure(err error, write bool) error {
	switch {
	case hasState(err, stateQueryCanceled):
		return status.Errorf(status.ELimit, fmt.Sprintf(
			"request took longer than max_query_ms=%d: PostgreSQL cancelled the statement (statement_timeout) and rolled it back; nothing was written", s.cfg.MaxQueryMs))
	case errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err):
		if !write {
			return status.Errorf(status.ELimit, fmt.Sprintf(
				"no answer from PostgreSQL at %s within max_query_ms=%d plus %d ms; the connection was closed", s.where, s.cfg.MaxQueryMs, answerGraceMs))
		}
		return status.Errorf(status.EDatabase, fmt.Sprintf(
			"no answer from PostgreSQL at %s within max_query_ms=%d plus %d ms; the connection was closed, and whether the write committed is not known", s.where, s.cfg.MaxQueryMs, answerGraceMs))
	}
	msg := fmt.Sprintf("lost the connection to PostgreSQL at %s: %v", s.where, err)
	if write {
		msg += "; whether the write committed is not known"
	}
	return status.Errorf(status.EDatabase, s.secrets.scrub(msg))
}

// connectFailure is the call failure for a connection that could not be
// made or was refused: unreachable, timed out, login or database refused.
func (s *server) connectFailure(err error) error {
	var pe *pgconn.PgError
	var msg string
	switch {
	case errors.As(err, &pe) && (pe.Code == "28P01" || pe.Code == "28000"):
		msg = fmt.Sprintf("PostgreSQL at %s refused the login: %s (SQLSTATE %s)", s.where, pe.Message, pe.Code)
	case errors.As(err, &pe):
		msg = fmt.Sprintf("PostgreSQL at %s refused the connection: %s (SQLSTATE %s)", s.where, pe.Message, pe.Code)
	case errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err):
		msg = fmt.Sprintf("no connection to PostgreSQL at %s within connect_timeout_ms=%d (or max_query_ms=%d while all pool_size=%d connections were busy)",
			s.where, s.cfg.ConnectTimeoutMs, s.cfg.MaxQueryMs, s.cfg.PoolSize)
	default:
		msg = fmt.Sprintf("cannot reach PostgreSQL at %s: %v", s.where, innermost(err))
	}
	return status.Errorf(status.EDatabase, s.secrets.scrub(msg))
}

// innermost is the root cause of a connect error ("dial tcp ...:
// connection refused"), without pgx's prefix that repeats user and database.
func innermost(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
