// SPDX-License-Identifier: Apache-2.0
// Request parsing and response shapes for the HTTP service (json_io.h).
#include "server/json_io.h"

#include <charconv>
#include <cmath>
#include <unordered_set>

#include "base/status_macros.h"

namespace neardup::server {
namespace {

// Deepest nesting of [ and { outside strings, stopping early past `limit`:
// rejects deep bodies before the parser builds them.
int NestingDepth(std::string_view s, int limit) {
  int depth = 0, max_depth = 0;
  bool in_string = false, escaped = false;
  for (char c : s) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{') {
      max_depth = std::max(max_depth, ++depth);
      if (max_depth > limit) return max_depth;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return max_depth;
}

// Numbers of larger magnitude have neighbours a double (and JavaScript)
// cannot tell apart: they would not come back as they were sent.
constexpr int64_t kMaxExact = int64_t{1} << 53;

// Builds the document like the default parser and refuses what it would
// accept silently: a key repeated in one object (the last would win) and a
// number beyond 2^53 in magnitude. `problem` says which.
class StrictSax {
 public:
  explicit StrictSax(Json* out) : dom_(*out, /*allow_exceptions=*/false) {}

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(Json::number_integer_t v) {
    return Exact(v >= -kMaxExact && v <= kMaxExact) && dom_.number_integer(v);
  }
  bool number_unsigned(Json::number_unsigned_t v) {
    return Exact(v <= static_cast<uint64_t>(kMaxExact)) && dom_.number_unsigned(v);
  }
  // A literal with a fraction or an exponent: 2^53 itself may be a rounded
  // 2^53 + 1.
  bool number_float(Json::number_float_t v, const Json::string_t& s) {
    return Exact(std::fabs(v) < static_cast<double>(kMaxExact)) && dom_.number_float(v, s);
  }
  bool string(Json::string_t& v) { return dom_.string(v); }
  bool binary(Json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) {
    keys_.emplace_back();
    return dom_.start_object(n);
  }
  bool key(Json::string_t& k) {
    if (!keys_.back().insert(k).second) {
      problem = "duplicate key '" + k.substr(0, 64) + "' in a JSON object";
      return false;
    }
    return dom_.key(k);
  }
  bool end_object() {
    keys_.pop_back();
    return dom_.end_object();
  }
  bool start_array(std::size_t n) { return dom_.start_array(n); }
  bool end_array() { return dom_.end_array(); }
  template <class Exception>
  bool parse_error(std::size_t at, const std::string& token, const Exception& e) {
    return dom_.parse_error(at, token, e);
  }

  std::string problem;

 private:
  bool Exact(bool exact) {
    if (exact) return true;
    problem = "a number beyond 2^53 in magnitude (it would not be kept exactly)";
    return false;
  }

  nlohmann::detail::json_sax_dom_parser<Json> dom_;
  std::vector<std::unordered_set<std::string>> keys_;
};

}  // namespace

Result<Json> ParseBody(std::string_view body, const Limits& limits) {
  if (NestingDepth(body, limits.max_depth) > limits.max_depth) {
    return Status::InvalidArgument("JSON nested deeper than " + std::to_string(limits.max_depth));
  }
  Json j;
  StrictSax sax(&j);
  if (!Json::sax_parse(body.begin(), body.end(), &sax)) {
    if (!sax.problem.empty()) return Status::InvalidArgument(sax.problem);
    return Status::InvalidArgument("body is not valid JSON (or not UTF-8)");
  }
  return j;
}

Status CheckId(std::string_view id, const Limits& limits) {
  if (id.empty()) return Status::InvalidArgument("id must be a non-empty string");
  if (id.size() > limits.max_id_bytes) {
    return Status::InvalidArgument("id longer than " + std::to_string(limits.max_id_bytes) +
                                   " bytes");
  }
  for (unsigned char c : id) {
    if (c < 0x20 || c == 0x7f) return Status::InvalidArgument("id contains a control character");
  }
  return Status::OK();
}

Result<IncomingDocument> ParseDocument(const Json& j, const Limits& limits) {
  if (!j.is_object()) return Status::InvalidArgument("a document must be a JSON object");
  IncomingDocument d;
  auto id = j.find("id");
  // An integer is its decimal text, as the CLI and Python read ids: 7 is "7".
  if (id != j.end() && id->is_number_integer()) {
    d.id = id->dump();
  } else if (id != j.end() && id->is_string()) {
    d.id = id->get<std::string>();
  } else {
    return Status::InvalidArgument("'id' must be a string or an integer");
  }
  NEARDUP_RETURN_IF_ERROR(CheckId(d.id, limits));
  auto text = j.find("text");
  if (text == j.end() || !text->is_string()) {
    return Status::InvalidArgument("'text' must be a string");
  }
  d.text = text->get<std::string>();
  if (d.text.size() > limits.max_doc_bytes) {
    return Status::OutOfRange("text of '" + d.id + "' is " + std::to_string(d.text.size()) +
                              " bytes; the limit is " + std::to_string(limits.max_doc_bytes));
  }
  if (auto t = j.find("time"); t != j.end() && !t->is_null()) {
    // Milliseconds since the epoch, within what a double holds exactly.
    constexpr int64_t kMax = int64_t{1} << 53;
    if (t->is_number_unsigned() && t->get<uint64_t>() < static_cast<uint64_t>(kMax)) {
      d.time = static_cast<int64_t>(t->get<uint64_t>());
    } else if (t->is_number_integer() && t->get<int64_t>() >= 0 && t->get<int64_t>() < kMax) {
      d.time = t->get<int64_t>();
    } else {
      return Status::InvalidArgument(
          "'time' must be an integer of ms since the epoch in [0, 2^53)");
    }
  }
  if (auto m = j.find("meta"); m != j.end() && !m->is_null()) {
    if (!m->is_object()) return Status::InvalidArgument("'meta' must be a JSON object");
    d.meta = Dump(*m);
    if (d.meta.size() > limits.max_meta_bytes) {
      return Status::OutOfRange("meta is over " + std::to_string(limits.max_meta_bytes) + " bytes");
    }
  }
  return d;
}

Status ParseBatch(std::string_view body, const Limits& limits,
                  std::vector<Result<IncomingDocument>>* docs) {
  size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return Status::InvalidArgument("empty batch");
  if (body[first] == '[') {
    NEARDUP_ASSIGN_OR_RETURN(Json j, ParseBody(body, limits));
    if (!j.is_array()) return Status::InvalidArgument("batch must be a JSON array or NDJSON");
    if (j.empty()) return Status::InvalidArgument("empty batch");  // as for NDJSON
    if (j.size() > limits.max_batch) {
      return Status::OutOfRange("batch of " + std::to_string(j.size()) +
                                " documents; the limit is " + std::to_string(limits.max_batch));
    }
    for (const auto& item : j) docs->push_back(ParseDocument(item, limits));
    return Status::OK();
  }
  size_t pos = 0;
  while (pos < body.size()) {
    size_t end = body.find('\n', pos);
    if (end == std::string_view::npos) end = body.size();
    std::string_view line = body.substr(pos, end - pos);
    pos = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (docs->size() == limits.max_batch) {
      return Status::OutOfRange("batch over the limit of " + std::to_string(limits.max_batch) +
                                " documents");
    }
    auto j = ParseBody(line, limits);
    docs->push_back(j.ok() ? ParseDocument(*j, limits) : Result<IncomingDocument>(j.status()));
  }
  if (docs->empty()) return Status::InvalidArgument("empty batch");
  return Status::OK();
}

Json MatchesJson(const std::vector<Match>& matches) {
  Json a = Json::array();
  for (const auto& m : matches) {
    Json j = {{"id", m.id}, {"signal", m.signal}, {"similarity", m.similarity}};
    if (m.distance >= 0) j["distance"] = m.distance;
    if (m.verified) j["verified"] = *m.verified;
    a.push_back(std::move(j));
  }
  return a;
}

Json IngestJson(const IngestResult& r) {
  return {{"id", r.add.id},
          {"cluster", r.add.cluster},
          {"duplicate", r.add.duplicate},
          {"cluster_size", r.add.cluster_size},
          {"fingerprint", FingerprintHex(r.add.fingerprint)},
          {"created", r.created},
          {"matches", MatchesJson(r.add.matches)},
          {"gathered", r.add.gathered}};
}

Json ErrorJson(std::string_view code, std::string_view message) {
  return {{"error", {{"code", std::string(code)}, {"message", std::string(message)}}}};
}

Json MetaJson(const std::string& meta) {
  if (meta.empty()) return nullptr;
  Json j = Json::parse(meta, nullptr, false);
  return j.is_discarded() ? Json(nullptr) : j;
}

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

int HttpStatus(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kAlreadyExists:
      return 409;
    case StatusCode::kOutOfRange:
      return 413;
    case StatusCode::kFailedPrecondition:
      return 409;
    case StatusCode::kResourceExhausted:
      return 507;
    case StatusCode::kUnavailable:
      return 503;
    default:
      return 500;
  }
}

Result<size_t> ParseCount(std::string_view s, std::string_view name, size_t max) {
  size_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v > max) {
    return Status::InvalidArgument("'" + std::string(name) + "' must be an integer in [0, " +
                                   std::to_string(max) + "]");
  }
  return v;
}

}  // namespace neardup::server
