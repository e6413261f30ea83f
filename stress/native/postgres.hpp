// postgres.hpp -- dalstress --postgres URL|local (docs/dalstress.md, "On
// PostgreSQL"): the DAL on a PostgreSQL database instead of a SQLite data
// directory.
//
// `local` starts a throwaway server for the run: dalstress executes
// scripts/lib/pg-cluster.sh run --no-replica -- <itself, same arguments>,
// which starts a primary on a free loopback port, runs that copy with
// DALKIT_PG_URL set, and stops the server and removes its directory on
// every exit path (Ctrl-C: 130).  The JS drivers do the same
// (stress/js/postgres.js).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dalstress {

// Whether s is a URL the DAL opens as PostgreSQL (dal.h, POSTGRESQL).
bool is_postgres_url(std::string_view s);

// --postgres local.  In the copy pg-cluster.sh started, sets url to its
// server's URL and returns true.  Otherwise executes that copy (and does
// not return), or sets error and returns false.
bool under_local_postgres(char** argv, std::string& url, std::string& error);

// url with its password (if any) replaced by "***", for messages.
std::string redacted_url(const std::string& url);

// The schema (a request's db) of this run: unique to the process and the
// moment, so that runs on one database never meet.
std::string run_schema_name();

// Drops the run's schema at its end, with everything in it.
bool drop_run_schema(int64_t h, const std::string& schema, std::string& error);

}  // namespace dalstress
