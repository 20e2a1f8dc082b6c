#pragma once
// The causal tables of `--format sqlite` (docs/report.md "SQLite schema"): experiments,
// progress (per experiment per progress point), regions (timed regions merged over
// processes), predictions (the curves, ranked by impact) and causal_without_prediction
// (locations experiments ran on that have no curve, with the reason).

namespace cprof::report {

class Db;
struct Report;

// Creates the tables and fills them; errors stick in db (Db::error).
void write_sqlite_causal(Db& db, const Report& r);

}  // namespace cprof::report
