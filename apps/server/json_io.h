// SPDX-License-Identifier: Apache-2.0
//
// JSON input and output for the HTTP service: strict, bounded parsing of
// request bodies (no exceptions escape; depth, size and type limits) and the
// JSON shapes of results and errors (docs/api.md).
//
// Thread safety: pure functions.
#ifndef NEARDUP_APPS_SERVER_JSON_IO_H_
#define NEARDUP_APPS_SERVER_JSON_IO_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/durable_engine.h"
#include "neardup/status.h"

namespace neardup::server {

using Json = nlohmann::json;

struct Limits {
  size_t max_body_bytes = 32u << 20;  // whole request body
  size_t max_doc_bytes = 1u << 20;    // one document's text
  size_t max_batch = 1000;            // documents per batch request
  size_t max_id_bytes = 512;
  size_t max_meta_bytes = 64u << 10;  // serialized meta object
  int max_depth = 32;                 // JSON nesting
};

// Parses a JSON body; InvalidArgument on bad JSON (including ill-formed
// UTF-8) or nesting deeper than limits.max_depth.
Result<Json> ParseBody(std::string_view body, const Limits& limits);

// A document object {id, text, time?, meta?}. The id is a string or an
// integer, which becomes its decimal text (7 and "7" are one id, as in
// Python and neardup/ids.h). Errors: InvalidArgument for a missing or
// mistyped field, OutOfRange for sizes over the limits.
Result<IncomingDocument> ParseDocument(const Json& j, const Limits& limits);

// The documents of a batch body: a JSON array or NDJSON (one object per
// line, blank lines skipped). A line that does not parse becomes an error
// in its slot. Errors: InvalidArgument (empty, not an array of objects),
// OutOfRange (more than max_batch documents).
Status ParseBatch(std::string_view body, const Limits& limits,
                  std::vector<Result<IncomingDocument>>* docs);

// Validates a document id from a URL or body.
Status CheckId(std::string_view id, const Limits& limits);

Json MatchesJson(const std::vector<Match>& matches);
Json IngestJson(const IngestResult& r);
Json ErrorJson(std::string_view code, std::string_view message);
// The meta text of a record as JSON (null when empty or unreadable).
Json MetaJson(const std::string& meta);

// UTF-8-safe serialization (ill-formed bytes become U+FFFD).
std::string Dump(const Json& j);

// HTTP status for a library error.
int HttpStatus(const Status& s);

// Parses a non-negative integer query parameter; InvalidArgument otherwise.
Result<size_t> ParseCount(std::string_view s, std::string_view name, size_t max);

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_JSON_IO_H_
