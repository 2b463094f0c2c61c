// SPDX-License-Identifier: Apache-2.0
#include "batch/jsonl.h"

#include <simdjson.h>

#include <charconv>
#include <cstring>
#include <vector>

#include "neardup/utf8.h"

namespace neardup::batch {

bool IsBlankLine(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

void AppendJsonString(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t run = 0;  // start of the pending unescaped run
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        out->append("\\u00");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

struct RecordParser::Impl {
  JsonlFields fields;
  simdjson::dom::parser parser;
  std::string padded;    // a copy with padding, when the line lacks it
  std::string repaired;  // the line after ReplaceInvalidUtf8
  std::string id;

  // Parses the JSON of the line (with BOM, padding and UTF-8 handling).
  Status ParseDom(std::string_view line, size_t readable, simdjson::dom::element* doc) {
    if (line.size() >= 3 && std::memcmp(line.data(), "\xEF\xBB\xBF", 3) == 0) {
      line.remove_prefix(3);
      readable -= 3;
    }
    const simdjson::error_code e = ParseRaw(line, readable, doc);
    if (e == simdjson::SUCCESS) return Status::OK();
    if (e == simdjson::MEMALLOC) return OutOfMemory(line.size());
    if (Status u = ValidateUtf8(line); !u.ok()) {
      if (!fields.replace_invalid_utf8) return u;
      repaired = ReplaceInvalidUtf8(line);
      repaired.reserve(repaired.size() + simdjson::SIMDJSON_PADDING);
      const std::string_view r = repaired;
      const simdjson::error_code again = ParseRaw(r, repaired.capacity(), doc);
      if (again == simdjson::SUCCESS) return Status::OK();
      if (again == simdjson::MEMALLOC) return OutOfMemory(r.size());
    }
    return Status::InvalidArgument("malformed JSON");
  }

  // The parser could not get the memory for its index of the line: not the
  // record's fault (it was reported as malformed JSON).
  static Status OutOfMemory(size_t bytes) {
    return Status::ResourceExhausted("out of memory parsing a record of " + std::to_string(bytes) +
                                     " bytes");
  }

  simdjson::error_code ParseRaw(std::string_view line, size_t readable,
                                simdjson::dom::element* doc) {
    const char* p = line.data();
    if (readable < line.size() + simdjson::SIMDJSON_PADDING) {
      padded.assign(line);
      padded.append(simdjson::SIMDJSON_PADDING, '\0');
      p = padded.data();
    }
    return parser.parse(p, line.size(), /*realloc_if_needed=*/false).get(*doc);
  }

  // The id of a record without one (RecordPlace).
  void PlaceId(RecordPlace place) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, place.line);
    if (place.file.empty()) {
      id.assign(buf, r.ptr);
      return;
    }
    std::string name(place.file);
    name += ':';
    name.append(buf, r.ptr);
    AppendJsonString(name, &id);
  }

  Status IdOf(const simdjson::dom::object& obj, RecordPlace place) {
    id.clear();
    simdjson::dom::element v;
    if (obj.at_key(fields.id_field).get(v) != simdjson::SUCCESS || v.is_null()) {
      PlaceId(place);
      return Status::OK();
    }
    char buf[24];
    switch (v.type()) {
      case simdjson::dom::element_type::INT64: {
        auto r = std::to_chars(buf, buf + sizeof buf, int64_t(v));
        id.assign(buf, r.ptr);
        return Status::OK();
      }
      case simdjson::dom::element_type::UINT64: {
        auto r = std::to_chars(buf, buf + sizeof buf, uint64_t(v));
        id.assign(buf, r.ptr);
        return Status::OK();
      }
      case simdjson::dom::element_type::STRING:
        AppendJsonString(std::string_view(v), &id);
        return Status::OK();
      default:
        return Status::InvalidArgument("field '" + fields.id_field +
                                       "' must be a string or an integer");
    }
  }

  Status Object(std::string_view line, size_t readable, simdjson::dom::object* obj) {
    simdjson::dom::element doc;
    if (Status s = ParseDom(line, readable, &doc); !s.ok()) return s;
    if (doc.get_object().get(*obj) != simdjson::SUCCESS) {
      return Status::InvalidArgument("record is not a JSON object");
    }
    return Status::OK();
  }
};

RecordParser::RecordParser(JsonlFields fields) : impl_(std::make_unique<Impl>()) {
  impl_->fields = std::move(fields);
  impl_->id.reserve(64);
}

RecordParser::~RecordParser() = default;

Status RecordParser::Parse(std::string_view line, size_t readable, RecordPlace place,
                           ParsedRecord* out) {
  simdjson::dom::object obj;
  if (Status s = impl_->Object(line, readable, &obj); !s.ok()) return s;
  simdjson::dom::element t;
  if (obj.at_key(impl_->fields.text_field).get(t) != simdjson::SUCCESS) {
    return Status::InvalidArgument("missing field '" + impl_->fields.text_field + "'");
  }
  if (t.get_string().get(out->text) != simdjson::SUCCESS) {
    return Status::InvalidArgument("field '" + impl_->fields.text_field + "' is not a string");
  }
  if (Status s = impl_->IdOf(obj, place); !s.ok()) return s;
  out->id_json = impl_->id;
  return Status::OK();
}

Status RecordParser::ParseId(std::string_view line, size_t readable, RecordPlace place,
                             std::string_view* id_json) {
  simdjson::dom::object obj;
  if (Status s = impl_->Object(line, readable, &obj); !s.ok()) return s;
  if (Status s = impl_->IdOf(obj, place); !s.ok()) return s;
  *id_json = impl_->id;
  return Status::OK();
}

}  // namespace neardup::batch
