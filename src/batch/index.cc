// SPDX-License-Identifier: Apache-2.0
//
// A reusable batch index of a corpus (BuildBatchIndex) and its use by a run
// against it (BatchOptions::against). The directory holds
//
//   index.json   format, pipeline identity, corpus files (absolute path,
//                size, modification time, lines), counts; written last
//   keys.run     the corpus's bucket keys, one sorted run of KeyEntry
//                (12 bytes each, host byte order; the id space is left out)
//   lines.bin    per corpus line: its byte offset (u64), then its state (u8)
//   payloads.bin per corpus line: the payload (u64), when the signature has them
//   state.bin    learned statistics (learned IDF), when the signature has them
//
// A run against the index puts the corpus lines first (ids 0..Nc-1) and the
// new input after them, merges keys.run with the new keys as one more sorted
// run, and pairs only buckets members of which one is new. Corpus texts are
// read (memory-mapped) only to verify a pair or to print a corpus id. The
// corpus files must be unchanged (size and modification time) since the
// index was built.
#include <simdjson.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "base/file_util.h"
#include "base/machine.h"
#include "base/status_macros.h"
#include "batch/batch_run.h"
#include "batch/jsonl.h"

namespace neardup {
namespace {

constexpr std::string_view kFormat = "neardup-batch-index-1";

Status WriteFileAtomically(const std::string& path, std::string_view data) {
  return base::AtomicWrite(path, data);
}

std::string IndexJson(const BatchDedup::Impl& m, uint64_t keys) {
  std::string j = "{\"format\":";
  batch::AppendJsonString(kFormat, &j);
  j += ",\"identity\":";
  batch::AppendJsonString(m.sig->identity(), &j);
  j += ",\"lines\":" + std::to_string(m.n) + ",\"records\":" + std::to_string(m.stats.records) +
       ",\"keys\":" + std::to_string(keys) +
       ",\"payloads\":" + (m.lines->payload_enabled() ? "true" : "false") + ",\"files\":[";
  for (size_t i = 0; i < m.files.size(); ++i) {
    const batch::InputFile& f = m.files[i];
    if (i > 0) j += ",";
    j += "{\"path\":";
    batch::AppendJsonString(std::filesystem::absolute(f.path).string(), &j);
    j += ",\"size\":" + std::to_string(f.size) + ",\"mtime_ns\":" + std::to_string(f.mtime_ns) +
         ",\"first_line\":" + std::to_string(f.first_line) +
         ",\"lines\":" + std::to_string(f.lines) + "}";
  }
  j += "]}\n";
  return j;
}

}  // namespace

Status BuildBatchIndex(const std::vector<std::string>& names, const std::string& dir,
                       const BatchOptions& options, BatchStats* stats) try {
  for (const auto& n : names) {
    if (n == "-") return Status::InvalidArgument("an index refers to its corpus files: give files");
  }
  if (names.empty()) return Status::InvalidArgument("no corpus files");
  if (!options.against.empty())
    return Status::InvalidArgument("an index cannot be built --against");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError(dir + ": cannot create directory: " + ec.message());
  auto m = std::make_unique<BatchDedup::Impl>();
  m->options = options;
  NEARDUP_RETURN_IF_ERROR(m->Setup(names));
  if (m->sig->wants_learning()) NEARDUP_RETURN_IF_ERROR(m->LearnPhase());
  batch::KeyRuns keys(m->tmp.get(), "keys");
  NEARDUP_RETURN_IF_ERROR(m->SketchPhase(&keys));
  m->DeliverSkips();
  // One sorted run of the corpus's keys, without the id space.
  m->monitor->Phase(BatchPhase::kMerge, keys.records());
  NEARDUP_ASSIGN_OR_RETURN(auto merger, keys.Merge(64 << 20));
  const std::string keys_tmp = dir + "/keys.run.tmp";
  uint64_t written = 0;
  {
    batch::SpillWriter w;
    NEARDUP_RETURN_IF_ERROR(w.Open(keys_tmp, 4 << 20));
    batch::KeyEntry e;
    while (true) {
      NEARDUP_ASSIGN_OR_RETURN(bool more, merger->Next(&e));
      if (!more) break;
      if (batch::SpaceOf(e.key) == batch::kIdSpace) continue;
      NEARDUP_RETURN_IF_ERROR(w.Append(&e, sizeof e));
      if ((++written & 0xFFFF) == 0) {
        m->monitor->Done(written);
        m->monitor->Tick();
      }
    }
    NEARDUP_RETURN_IF_ERROR(w.Close());
  }
  merger.reset();
  {
    batch::SpillWriter lw, pw;
    NEARDUP_RETURN_IF_ERROR(lw.Open(dir + "/lines.bin", 4 << 20));
    for (uint64_t i = 0; i < m->n; ++i) {
      const uint64_t off = m->lines->offset(i);
      NEARDUP_RETURN_IF_ERROR(lw.Append(&off, sizeof off));
    }
    for (uint64_t i = 0; i < m->n; ++i) {
      const uint8_t st = m->lines->state(i);
      NEARDUP_RETURN_IF_ERROR(lw.Append(&st, 1));
    }
    NEARDUP_RETURN_IF_ERROR(lw.Close());
    if (m->lines->payload_enabled()) {
      NEARDUP_RETURN_IF_ERROR(pw.Open(dir + "/payloads.bin", 4 << 20));
      for (uint64_t i = 0; i < m->n; ++i) {
        const uint64_t p = m->lines->payload(i);
        NEARDUP_RETURN_IF_ERROR(pw.Append(&p, sizeof p));
      }
      NEARDUP_RETURN_IF_ERROR(pw.Close());
    }
  }
  if (m->sig->wants_learning() || !options.idf_load.empty()) {
    NEARDUP_RETURN_IF_ERROR(m->sig->SaveState(dir + "/state.bin"));
  }
  if (std::rename(keys_tmp.c_str(), (dir + "/keys.run").c_str()) != 0) {
    return Status::IOError(dir + "/keys.run: rename failed: " + std::strerror(errno));
  }
  NEARDUP_RETURN_IF_ERROR(WriteFileAtomically(dir + "/index.json", IndexJson(*m, written)));
  m->stats.keys = written;
  m->monitor->Finish(&m->stats);
  if (stats != nullptr) *stats = m->stats;
  return Status::OK();
} catch (...) {
  return base::ResourceErrorOrRethrow();
}

Status BatchDedup::Impl::OpenIndex() {
  const std::string& dir = options.against;
  std::string text;
  if (Status s = base::ReadWholeFile(dir + "/index.json", &text); !s.ok()) {
    return Status::NotFound(dir +
                            ": not a batch index (no index.json; build one with `neardup "
                            "index build`)");
  }
  simdjson::dom::parser parser;
  simdjson::dom::element j;
  auto bad = [&](std::string_view what) {
    return Status::Corruption(dir + "/index.json: " + std::string(what));
  };
  if (parser.parse(text).get(j) != simdjson::SUCCESS) return bad("malformed JSON");
  std::string_view format, identity;
  if (j["format"].get(format) != simdjson::SUCCESS || format != kFormat) {
    return bad("unknown format (expected " + std::string(kFormat) + ")");
  }
  if (j["identity"].get(identity) != simdjson::SUCCESS) return bad("no identity");
  if (identity != sig->identity()) {
    return Status::FailedPrecondition(
        dir +
        ": the index was built with another pipeline; use the same options as `neardup "
        "index build` (index: " +
        std::string(identity) + "; now: " + sig->identity() + ")." + sig->IdentityHint(identity));
  }
  uint64_t lines_n = 0, keys_n = 0;
  bool payloads = false;
  simdjson::dom::array file_list;
  if (j["lines"].get(lines_n) || j["keys"].get(keys_n) || j["payloads"].get(payloads) ||
      j["files"].get(file_list)) {
    return bad("missing fields");
  }
  for (simdjson::dom::element fe : file_list) {
    batch::InputFile f;
    std::string_view path;
    uint64_t size = 0, first = 0, count = 0;
    int64_t mtime = 0;
    if (fe["path"].get(path) || fe["size"].get(size) || fe["mtime_ns"].get(mtime) ||
        fe["first_line"].get(first) || fe["lines"].get(count)) {
      return bad("bad file entry");
    }
    f.name = f.path = std::string(path);
    struct stat st;
    if (stat(f.path.c_str(), &st) != 0) {
      return Status::FailedPrecondition(f.path + ": corpus file of index " + dir +
                                        " is gone: " + std::strerror(errno));
    }
    const int64_t now = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    if (static_cast<uint64_t>(st.st_size) != size || now != mtime) {
      return Status::FailedPrecondition(
          f.path + ": corpus file changed since index " + dir +
          " was built (size or modification time differ); rebuild it with `neardup index build`");
    }
    f.size = size;
    f.mtime_ns = mtime;
    f.first_line = first;
    f.lines = count;
    files.push_back(std::move(f));
  }
  if (payloads != lines->payload_enabled()) return bad("payloads do not match the pipeline");
  // The corpus lines: offsets, states, payloads.
  batch::SpillReader lr, pr;
  NEARDUP_RETURN_IF_ERROR(lr.Open(dir + "/lines.bin", 4 << 20));
  for (uint64_t i = 0; i < lines_n; ++i) {
    uint64_t off = 0;
    NEARDUP_ASSIGN_OR_RETURN(bool ok, lr.Read(&off, sizeof off));
    if (!ok) return bad("lines.bin is short");
    lines->Append(off);
  }
  for (uint64_t i = 0; i < lines_n; ++i) {
    uint8_t st = 0;
    NEARDUP_ASSIGN_OR_RETURN(bool ok, lr.Read(&st, 1));
    if (!ok) return bad("lines.bin is short");
    lines->set_state(i, st);
  }
  if (payloads) {
    NEARDUP_RETURN_IF_ERROR(pr.Open(dir + "/payloads.bin", 4 << 20));
    for (uint64_t i = 0; i < lines_n; ++i) {
      uint64_t p = 0;
      NEARDUP_ASSIGN_OR_RETURN(bool ok, pr.Read(&p, sizeof p));
      if (!ok) return bad("payloads.bin is short");
      lines->set_payload(i, p);
    }
  }
  if (batch::FileBytes(dir + "/keys.run") != keys_n * sizeof(batch::KeyEntry)) {
    return bad("keys.run does not match its count");
  }
  struct stat st;
  if (stat((dir + "/state.bin").c_str(), &st) == 0) {
    NEARDUP_RETURN_IF_ERROR(sig->LoadState(dir + "/state.bin"));
  }
  corpus_lines = lines_n;
  corpus_files = files.size();
  index_keys = dir + "/keys.run";
  index_key_records = keys_n;
  return Status::OK();
}

}  // namespace neardup
