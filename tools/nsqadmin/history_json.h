#pragma once

#include <string>

#include "history.h"

// The JSON of GET /api/history/...: nsqadmin's own API (Go has none).
namespace nsq::admin {

// {"interval_ms": 10000, "duration_ms": 3600000,
//  "time": [unix ms, ...], "series": {"rate": [v|null, ...], "depth": [...]},
//  "message": ""}. Each series has one value per time; null where it was not
// known (a rate's first poll, a quantile nsqd did not report yet).
std::string history_json(const HistoryShape& shape, const SeriesBuffer::View& view);

}  // namespace nsq::admin
