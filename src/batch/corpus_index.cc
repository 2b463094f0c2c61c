// SPDX-License-Identifier: Apache-2.0
//
// A reusable batch index of a corpus (BuildBatchIndex) and its use by a run
// against it (BatchOptions::against). The directory holds
//
//   index.json   format, pipeline identity, corpus files (absolute path,
//                size, modification time, lines), counts; written last
//   keys.run     the corpus's bucket keys, one sorted run of KeyEntry
//                (12 bytes each, host byte order), its ids' keys included
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
#include "batch/jsonl.h"
#include "batch/pipeline.h"

namespace neardup {
namespace {

// Format 2 keeps the id keys (a run against the index refuses an id the
// corpus has) and each file's id_file (RecordPlace).
constexpr std::string_view kFormat = "neardup-batch-index-2";

Status WriteFileAtomically(const std::string& path, std::string_view data) {
  return base::AtomicWrite(path, data);
}

std::string IndexJson(const batch::BatchRun& m, uint64_t keys) {
  const batch::RunInput& in = m.input;
  std::string j = "{\"format\":";
  batch::AppendJsonString(kFormat, &j);
  j += ",\"identity\":";
  batch::AppendJsonString(m.sig->identity(), &j);
  j += ",\"lines\":" + std::to_string(in.n()) + ",\"records\":" + std::to_string(m.stats.records) +
       ",\"keys\":" + std::to_string(keys) +
       ",\"payloads\":" + (in.lines->payload_enabled() ? "true" : "false") + ",\"files\":[";
  for (size_t i = 0; i < in.files.size(); ++i) {
    const batch::InputFile& f = in.files[i];
    if (i > 0) j += ",";
    j += "{\"path\":";
    batch::AppendJsonString(std::filesystem::absolute(f.path).string(), &j);
    j += ",\"size\":" + std::to_string(f.size) + ",\"mtime_ns\":" + std::to_string(f.mtime_ns) +
         ",\"first_line\":" + std::to_string(f.first_line) +
         ",\"lines\":" + std::to_string(f.lines) + ",\"id_file\":";
    batch::AppendJsonString(f.id_file, &j);
    j += "}";
  }
  j += "]}\n";
  return j;
}

// One sorted run of the corpus's keys into `path`; returns the keys written.
Result<uint64_t> WriteKeys(batch::BatchRun* m, batch::KeyRuns* keys, const std::string& path) {
  m->monitor->Phase(BatchPhase::kMerge, keys->records());
  NEARDUP_ASSIGN_OR_RETURN(auto merger, keys->Merge(64 << 20));
  uint64_t written = 0;
  batch::SpillWriter w;
  NEARDUP_RETURN_IF_ERROR(w.Open(path, 4 << 20));
  batch::KeyEntry e;
  while (true) {
    NEARDUP_ASSIGN_OR_RETURN(bool more, merger->Next(&e));
    if (!more) break;
    NEARDUP_RETURN_IF_ERROR(w.Append(&e, sizeof e));
    if ((++written & 0xFFFF) == 0) {
      m->monitor->Done(written);
      m->monitor->Tick();
    }
  }
  NEARDUP_RETURN_IF_ERROR(w.Close());
  return written;
}

// lines.bin (offsets, then states) and payloads.bin.
Status WriteLines(const batch::RunInput& in, const std::string& dir) {
  const uint64_t n = in.n();
  batch::SpillWriter lw, pw;
  NEARDUP_RETURN_IF_ERROR(lw.Open(dir + "/lines.bin", 4 << 20));
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t off = in.lines->offset(i);
    NEARDUP_RETURN_IF_ERROR(lw.Append(&off, sizeof off));
  }
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t st = in.lines->state(i);
    NEARDUP_RETURN_IF_ERROR(lw.Append(&st, 1));
  }
  NEARDUP_RETURN_IF_ERROR(lw.Close());
  if (!in.lines->payload_enabled()) return Status::OK();
  NEARDUP_RETURN_IF_ERROR(pw.Open(dir + "/payloads.bin", 4 << 20));
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t p = in.lines->payload(i);
    NEARDUP_RETURN_IF_ERROR(pw.Append(&p, sizeof p));
  }
  return pw.Close();
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
  // No key filter: nothing is paired here.
  NEARDUP_ASSIGN_OR_RETURN(auto m, batch::OpenRun(names, options, {.key_filter = false}));
  if (m->sig->wants_learning()) NEARDUP_RETURN_IF_ERROR(batch::LearnPhase(m.get()));
  const std::string keys_tmp = dir + "/keys.run.tmp";
  uint64_t written = 0;
  {
    batch::KeyRuns keys(m->tmp.get(), "keys");
    NEARDUP_RETURN_IF_ERROR(batch::SketchKeys(m.get(), &keys));
    m->errors.DeliverSkips(m->options.on_skip);
    NEARDUP_ASSIGN_OR_RETURN(written, WriteKeys(m.get(), &keys, keys_tmp));
  }
  NEARDUP_RETURN_IF_ERROR(WriteLines(m->input, dir));
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

namespace {

// One corpus file of index.json, checked unchanged since the index was built.
Status CorpusFile(simdjson::dom::element fe, const std::string& dir, batch::InputFile* f) {
  std::string_view path, id_file;
  uint64_t size = 0, first = 0, count = 0;
  int64_t mtime = 0;
  if (fe["path"].get(path) || fe["size"].get(size) || fe["mtime_ns"].get(mtime) ||
      fe["first_line"].get(first) || fe["lines"].get(count) || fe["id_file"].get(id_file)) {
    return Status::Corruption(dir + "/index.json: bad file entry");
  }
  f->name = f->path = std::string(path);
  f->id_file = std::string(id_file);
  struct stat st;
  if (stat(f->path.c_str(), &st) != 0) {
    return Status::FailedPrecondition(f->path + ": corpus file of index " + dir +
                                      " is gone: " + std::strerror(errno));
  }
  const int64_t now = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  if (static_cast<uint64_t>(st.st_size) != size || now != mtime) {
    return Status::FailedPrecondition(
        f->path + ": corpus file changed since index " + dir +
        " was built (size or modification time differ); rebuild it with `neardup index build`");
  }
  f->size = size;
  f->mtime_ns = mtime;
  f->first_line = first;
  f->lines = count;
  return Status::OK();
}

struct IndexInfo {
  uint64_t lines = 0, keys = 0;
  bool payloads = false;
};

// index.json: format, identity (that of `sig`), counts and corpus files.
Result<IndexInfo> ReadIndexJson(const std::string& dir, const batch::BatchSignature& sig,
                                std::vector<batch::InputFile>* files) {
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
  if (const auto e = parser.parse(text).get(j); e != simdjson::SUCCESS) {
    if (e == simdjson::MEMALLOC) {
      return Status::ResourceExhausted(dir + "/index.json: out of memory parsing it");
    }
    return bad("malformed JSON");
  }
  std::string_view format, identity;
  if (j["format"].get(format) != simdjson::SUCCESS) return bad("no format");
  if (format == "neardup-batch-index-1") {
    return Status::FailedPrecondition(dir +
                                      ": built by an older neardup (format 1, without its ids); "
                                      "rebuild it with `neardup index build`");
  }
  if (format != kFormat) return bad("unknown format (expected " + std::string(kFormat) + ")");
  if (j["identity"].get(identity) != simdjson::SUCCESS) return bad("no identity");
  if (!sig.IdentityMatches(identity)) {
    return Status::FailedPrecondition(
        dir +
        ": the index was built with another pipeline; use the same options as `neardup "
        "index build` (index: " +
        std::string(identity) + "; now: " + sig.identity() + ")." + sig.IdentityHint(identity));
  }
  IndexInfo info;
  simdjson::dom::array file_list;
  if (j["lines"].get(info.lines) || j["keys"].get(info.keys) || j["payloads"].get(info.payloads) ||
      j["files"].get(file_list)) {
    return bad("missing fields");
  }
  for (simdjson::dom::element fe : file_list) {
    batch::InputFile f;
    NEARDUP_RETURN_IF_ERROR(CorpusFile(fe, dir, &f));
    files->push_back(std::move(f));
  }
  return info;
}

// The corpus lines: offsets, states, payloads.
Status ReadCorpusLines(const std::string& dir, const IndexInfo& info, batch::LineTable* lines) {
  auto short_file = [&](const char* name) {
    return Status::Corruption(dir + "/index.json: " + name + " is short");
  };
  batch::SpillReader lr, pr;
  NEARDUP_RETURN_IF_ERROR(lr.Open(dir + "/lines.bin", 4 << 20));
  for (uint64_t i = 0; i < info.lines; ++i) {
    uint64_t off = 0;
    NEARDUP_ASSIGN_OR_RETURN(bool ok, lr.Read(&off, sizeof off));
    if (!ok) return short_file("lines.bin");
    lines->Append(off);
  }
  for (uint64_t i = 0; i < info.lines; ++i) {
    uint8_t st = 0;
    NEARDUP_ASSIGN_OR_RETURN(bool ok, lr.Read(&st, 1));
    if (!ok) return short_file("lines.bin");
    lines->set_state(i, st);
  }
  if (!info.payloads) return Status::OK();
  NEARDUP_RETURN_IF_ERROR(pr.Open(dir + "/payloads.bin", 4 << 20));
  for (uint64_t i = 0; i < info.lines; ++i) {
    uint64_t p = 0;
    NEARDUP_ASSIGN_OR_RETURN(bool ok, pr.Read(&p, sizeof p));
    if (!ok) return short_file("payloads.bin");
    lines->set_payload(i, p);
  }
  return Status::OK();
}

}  // namespace

namespace batch {

Status OpenIndex(BatchRun* run) {
  const std::string& dir = run->options.against;
  RunInput& in = run->input;
  NEARDUP_ASSIGN_OR_RETURN(const IndexInfo info, ReadIndexJson(dir, *run->sig, &in.files));
  if (info.payloads != in.lines->payload_enabled()) {
    return Status::Corruption(dir + "/index.json: payloads do not match the pipeline");
  }
  NEARDUP_RETURN_IF_ERROR(ReadCorpusLines(dir, info, in.lines.get()));
  if (FileBytes(dir + "/keys.run") != info.keys * sizeof(KeyEntry)) {
    return Status::Corruption(dir + "/index.json: keys.run does not match its count");
  }
  struct stat st;
  if (stat((dir + "/state.bin").c_str(), &st) == 0) {
    NEARDUP_RETURN_IF_ERROR(run->sig->LoadState(dir + "/state.bin"));
  }
  in.corpus_lines = info.lines;
  in.corpus_files = in.files.size();
  run->index_keys = dir + "/keys.run";
  run->index_key_records = info.keys;
  return Status::OK();
}

}  // namespace batch
}  // namespace neardup
