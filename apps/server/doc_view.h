// SPDX-License-Identifier: Apache-2.0
//
// What a person sees of a document in the console and the list API: a
// title (meta "title" when it is a non-empty string, else the first
// non-blank line of the stored text), a snippet of the text, and a keyword
// match over titles (docs/api.md, GET /v1/clusters?q=).
//
// Thread safety: pure functions. Cost: linear in the bytes they look at
// (at most the title line plus a few hundred bytes of text).
#ifndef NEARDUP_APPS_SERVER_DOC_VIEW_H_
#define NEARDUP_APPS_SERVER_DOC_VIEW_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/json_io.h"

namespace neardup::server {

struct DocView {
  std::string title;    // empty when there is neither a meta title nor text
  std::string snippet;  // whitespace runs collapsed to one space; Latin words not cut
};

constexpr size_t kTitleChars = 120;    // code points
constexpr size_t kSnippetChars = 160;  // code points

// `meta` is the document's meta object (or null); `text` its stored text.
// When the title comes from the text, the snippet starts after that line.
DocView MakeDocView(const Json& meta, const std::optional<std::string>& text);

// The first `max_chars` code points of `s`; "…" appended when cut. Never
// splits a UTF-8 sequence.
std::string TruncateChars(std::string_view s, size_t max_chars);

// The whitespace-separated terms of a filter, lower-cased (ASCII).
std::vector<std::string> FilterTerms(std::string_view q);

// True when every term occurs in `title`, ASCII letters compared without
// case (other characters, CJK included, compared as bytes).
bool MatchesTerms(std::string_view title, const std::vector<std::string>& terms);

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_DOC_VIEW_H_
