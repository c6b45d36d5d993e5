// Hiding the passwords of database connection strings in text that is stored or printed.
#pragma once

#include <string>

namespace hetscale {

/// `text` with every database password replaced by "***", in both forms libpq takes:
///   - URIs: "postgresql://u:secret@h/db" -> "postgresql://u:***@h/db" (also postgres://),
///     and a `password=` query parameter ("...?password=secret&sslmode=require");
///   - key=value strings: "host=h password=secret" -> "host=h password=***", also quoted
///     ("password='p w'" -> "password='***'", with libpq's \' and \\ escapes).
/// A spec's `database` key may carry a password, and specs and plans are stored (plan
/// files, the plan_rounds table, which dashboards read) and printed.
std::string redact_connection_passwords(std::string text);

/// `text` with every database password left out, in the same forms: the URI stays usable
/// and libpq takes the password from PGPASSWORD, PGPASSFILE or ~/.pgpass instead:
///   "postgresql://u:secret@h/db" -> "postgresql://u@h/db";
///   "postgresql://h/db?password=secret&sslmode=require" -> "postgresql://h/db?sslmode=require";
///   "host=h password='p w' dbname=d" -> "host=h dbname=d".
/// What hetscale writes into its own files (the study state, copies of specs) goes through
/// it: no file hetscale creates holds a password.
std::string remove_connection_passwords(std::string text);

}  // namespace hetscale
