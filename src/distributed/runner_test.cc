// SPDX-License-Identifier: Apache-2.0
//
// The whole distributed pipeline on 1-4 in-process ranks against one
// process's BatchDedup::Run: the same records, clusters and kept members.
#include "distributed/runner.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>
#include <random>
#include <string>
#include <tuple>

#include "base/random_text.h"
#include "batch/pipeline.h"
#include "distributed/in_process_comm.h"

namespace neardup::distributed {
namespace {

// Families of near-duplicates over a small vocabulary: a base text, copies
// with a word or two changed, integer ids in shuffled order.
std::string Corpus(int families, uint64_t seed) {
  static const char* const kWords[] = {"river",  "stone",  "bright", "window", "garden",  "silver",
                                       "market", "yellow", "winter", "letter", "orange",  "forest",
                                       "candle", "harbor", "pencil", "meadow", "thunder", "copper"};
  std::mt19937_64 rng(seed);
  auto word = [&] { return std::string(kWords[rng() % std::size(kWords)]); };
  std::string out;
  int line = 0;
  for (int f = 0; f < families; ++f) {
    std::vector<std::string> base;
    for (int i = 0, len = 12 + static_cast<int>(rng() % 10); i < len; ++i) base.push_back(word());
    for (int c = 0, copies = 1 + static_cast<int>(rng() % 4); c < copies; ++c, ++line) {
      std::vector<std::string> t = base;
      if (c > 0) t[rng() % t.size()] = word();
      std::string text;
      for (const auto& w : t) text += (text.empty() ? "" : " ") + w;
      out += "{\"id\":" + std::to_string((line * 7919) % 100003) + ",\"text\":\"" + text + " " +
             std::to_string(f) + "\"}\n";
    }
  }
  return out;
}

struct Row {
  std::string id, cluster, kept, line;
  uint64_t size;
  bool is_kept;
  bool operator==(const Row&) const = default;
};

std::vector<Row> Rows(BatchDedup* run);

// The rows of every rank's share, in rank order.
template <typename O>
std::vector<Row> AllRows(const O& got) {
  std::vector<Row> rows = Rows(got.result.get());
  for (const auto& share : got.shares) {
    if (!share) continue;
    const std::vector<Row> more = Rows(share.get());
    rows.insert(rows.end(), more.begin(), more.end());
  }
  return rows;
}

std::vector<Row> Rows(BatchDedup* run) {
  std::vector<Row> rows;
  EXPECT_TRUE(run->ForEachRecord([&](const BatchRecord& r) {
                   rows.push_back({std::string(r.id), std::string(r.cluster), std::string(r.kept),
                                   std::string(r.line), r.cluster_size, r.is_kept});
                   return Status::OK();
                 })
                  .ok());
  return rows;
}

struct Outcome {
  std::vector<Status> status;                       // per rank
  std::unique_ptr<BatchDedup> result;               // rank 0's
  std::vector<std::unique_ptr<BatchDedup>> shares;  // the other ranks'
  std::vector<std::string> info, skips;
};

class RunnerTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    auto dir = batch::TempDir::Create("");
    ASSERT_TRUE(dir.ok());
    dir_ = std::move(dir).value();
    path_ = Write("corpus.jsonl", Corpus(220, 5));
  }
  std::string Write(const std::string& name, const std::string& data) {
    const std::string path = dir_->File(name);
    std::ofstream(path, std::ios::binary) << data;
    return path;
  }
  static BatchOptions Options(const char* profile) {
    BatchOptions o;
    o.engine = *EngineOptions::FromProfile(profile);
    o.engine.threads = 1;
    o.memory_bytes = 64 << 20;
    return o;
  }
  // One process, with the signature the ranks share.
  std::unique_ptr<BatchDedup> Single(const std::vector<std::string>& files, BatchOptions o,
                                     std::vector<std::string>* skips = nullptr) {
    if (skips) o.on_skip = [skips](const Status& s) { skips->push_back(s.message()); };
    auto r = batch::RunWithSignature(files, o, sig_.get());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }
  // `own_signatures`: each rank makes its own (as MPI processes do), for
  // signatures with state such as learned IDF.
  Outcome Ranks(const std::vector<std::string>& files, BatchOptions o, DistributedOptions d = {},
                bool own_signatures = false) {
    Outcome out;
    out.status.resize(GetParam());
    out.shares.resize(GetParam());
    o.on_skip = [&](const Status& s) { out.skips.push_back(s.message()); };
    d.info = [&](const std::string& m) { out.info.push_back(m); };
    RunInProcess(GetParam(), [&](Comm& c) {
      auto r = RunOnComm(c, files, o, d, own_signatures ? nullptr : sig_.get());
      out.status[c.rank()] = r.status();
      if (!r.ok()) return;
      if (c.rank() == 0) {
        out.result = std::move(r).value();
      } else {
        EXPECT_NE(*r, nullptr);
        out.shares[c.rank()] = std::move(r).value();
      }
    });
    return out;
  }
  void MakeSignature(const BatchOptions& o) {
    auto sig = batch::CreateBatchSignature(o.engine, false);
    ASSERT_TRUE(sig.ok()) << sig.status().ToString();
    sig_ = std::move(sig).value();
  }
  // The ranks' counters, summed, are one process's.
  void ExpectSameCounters(const BatchStats& g, const BatchStats& w) const {
    EXPECT_EQ(g.records, w.records);
    EXPECT_EQ(g.candidate_pairs, w.candidate_pairs);
    EXPECT_EQ(g.similarity_calls, w.similarity_calls);
    EXPECT_EQ(g.edges, w.edges);
    EXPECT_EQ(g.multi_clusters, w.multi_clusters);
    EXPECT_EQ(g.duplicates, w.duplicates);
    EXPECT_EQ(g.refused_by_cap, w.refused_by_cap);
    EXPECT_EQ(g.ranks, GetParam());
  }
  // Same rows and counters as one process.
  void ExpectSame(const std::vector<std::string>& files, const BatchOptions& o) {
    MakeSignature(o);
    auto want = Single(files, o);
    ASSERT_TRUE(want);
    Outcome got = Ranks(files, o);
    for (const Status& s : got.status) ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(got.result);
    EXPECT_EQ(AllRows(got), Rows(want.get()));
    ExpectSameCounters(got.result->stats(), want->stats());
    EXPECT_GT(want->stats().multi_clusters, 20u);
  }

  std::unique_ptr<batch::TempDir> dir_;
  std::string path_;
  std::unique_ptr<batch::BatchSignature> sig_;
};

TEST_P(RunnerTest, DefaultPipeline) { ExpectSame({path_}, Options("default")); }

TEST_P(RunnerTest, QbankSmallestIdSpilling) {
  BatchOptions o = Options("qbank");
  o.engine.keep = KeepPolicy::kSmallestId;
  o.memory_bytes = 1 << 20;  // spills keys; shuffles in many rounds
  ExpectSame({path_}, o);
}

TEST_P(RunnerTest, CapAndLongest) {
  BatchOptions o = Options("default");
  o.max_cluster_size = 2;
  o.engine.keep = KeepPolicy::kLongest;
  ExpectSame({path_}, o);
}

// The boilerplate guard: the ranks count their own records' anchors and add
// their tables, and verify as one process does (ranks share one signature
// here, so the counts must go with each rank's scratches, not with it).
TEST_P(RunnerTest, BoilerplateGuardAsOneProcess) {
  const std::vector<std::string> texts = base::FooterSitePages(3, 4);
  std::string data;
  for (size_t i = 0; i < texts.size(); ++i) {
    data += "{\"id\":" + std::to_string(i) + ",\"text\":\"" + texts[i] + "\"}\n";
  }
  ExpectSame({Write("trap.jsonl", data)}, Options("default"));
}

TEST_P(RunnerTest, SimHashOverFilesWithABlankLine) {
  std::string all = Corpus(220, 9);
  const size_t cut1 = all.find('\n', all.size() / 3) + 1, cut2 = all.find('\n', all.size() / 2) + 1;
  const std::vector<std::string> files = {Write("a.jsonl", all.substr(0, cut1)),
                                          Write("b.jsonl", "\n" + all.substr(cut1, cut2 - cut1)),
                                          Write("c.jsonl", all.substr(cut2))};
  ExpectSame(files, Options("simhash"));
}

// The first bad record over all ranks, as one process reports it; skipped
// records reported in the same order.
TEST_P(RunnerTest, ErrorsAndSkipsAsOneProcess) {
  std::string data = Corpus(150, 3);
  const size_t mid = data.find('\n', data.size() / 2) + 1;
  data = data.substr(0, mid) + "{\"id\":1,\"text\":\"a repeated id\"}\nnot json\n" +
         data.substr(mid) + "{\"id\":1,\"text\":\"again\"}\n";
  const std::string bad = Write("bad.jsonl", data);
  BatchOptions o = Options("default");
  MakeSignature(o);
  auto single = batch::RunWithSignature({bad}, o, sig_.get());
  ASSERT_FALSE(single.ok());
  Outcome got = Ranks({bad}, o);
  for (const Status& s : got.status) EXPECT_EQ(s.message(), single.status().message());
  o.skip_invalid = true;
  std::vector<std::string> want_skips;
  auto want = Single({bad}, o, &want_skips);
  ASSERT_TRUE(want);
  got = Ranks({bad}, o);
  ASSERT_TRUE(got.status[0].ok()) << got.status[0].ToString();
  EXPECT_EQ(got.skips, want_skips);
  EXPECT_GE(want_skips.size(), 2u);
  EXPECT_EQ(AllRows(got), Rows(want.get()));
}

// With a work directory a run leaves checkpoints; a resumed run starts from
// the latest every rank has, for this run only, with the same result.
TEST_P(RunnerTest, ResumeFromCheckpoints) {
  BatchOptions o = Options("default");
  o.max_cluster_size = 3;
  MakeSignature(o);
  auto want = Single({path_}, o);
  ASSERT_TRUE(want);
  const std::vector<Row> rows = Rows(want.get());
  DistributedOptions d;
  d.work_dir = dir_->File("work");
  Outcome first = Ranks({path_}, o, d);
  ASSERT_TRUE(first.status[0].ok()) << first.status[0].ToString();
  EXPECT_TRUE(first.info.empty());
  d.resume = true;
  Outcome cluster = Ranks({path_}, o, d);
  ASSERT_TRUE(cluster.status[0].ok()) << cluster.status[0].ToString();
  ASSERT_EQ(cluster.info.size(), 1u);
  EXPECT_NE(cluster.info[0].find("resuming from the cluster checkpoint"), std::string::npos);
  EXPECT_EQ(AllRows(cluster), rows);
  const std::string last =
      d.work_dir + "/rank-" + std::to_string(GetParam() - 1) + "-of-" + std::to_string(GetParam());
  ASSERT_EQ(std::remove((last + "/cluster.done").c_str()), 0);
  Outcome verify = Ranks({path_}, o, d);
  ASSERT_TRUE(verify.status[0].ok()) << verify.status[0].ToString();
  ASSERT_EQ(verify.info.size(), 1u);
  EXPECT_NE(verify.info[0].find("resuming from the verify checkpoint"), std::string::npos);
  EXPECT_EQ(AllRows(verify), rows);
  EXPECT_EQ(verify.result->stats().similarity_calls, want->stats().similarity_calls);
  // Each rank's result holds its temporary directory: at most 16 live in a
  // process (TempDir::kMaxLiveDirs), and these ranks are threads.
  for (Outcome* o : {&first, &cluster, &verify}) *o = Outcome();
  // Other options: the checkpoints are not this run's.
  o.max_cluster_size = 4;
  auto want4 = Single({path_}, o);
  Outcome other = Ranks({path_}, o, d);
  ASSERT_TRUE(other.status[0].ok()) << other.status[0].ToString();
  EXPECT_TRUE(other.info.empty());
  EXPECT_EQ(AllRows(other), Rows(want4.get()));
}

// Each record's matches: (id, verified similarity or -1, signal, estimate),
// in the order listed.
using MatchList = std::vector<std::vector<std::tuple<std::string, double, std::string, double>>>;
void AppendMatches(BatchDedup* run, MatchList* out) {
  EXPECT_TRUE(run->ForEachRecord([&](const BatchRecord& r) {
                   auto& m = out->emplace_back();
                   for (const BatchMatch& x : r.matches) {
                     m.emplace_back(std::string(x.id), x.verified.value_or(-1),
                                    std::string(x.signal), x.similarity);
                   }
                   return Status::OK();
                 })
                  .ok());
}

MatchList Matches(BatchDedup* run) {
  MatchList out;
  AppendMatches(run, &out);
  return out;
}

// Every rank's share's matches, in rank order: each rank lists its own
// records' matches (no rank writes every record).
MatchList AllMatches(const Outcome& got) {
  MatchList out;
  AppendMatches(got.result.get(), &out);
  for (const auto& share : got.shares) {
    if (share) AppendMatches(share.get(), &out);
  }
  return out;
}

TEST_P(RunnerTest, MatchesAreOneProcesssMatches) {
  for (const char* profile : {"default", "qbank"}) {
    BatchOptions o = Options(profile);
    MakeSignature(o);
    o.with_matches = true;
    auto want = Single({path_}, o);
    Outcome got = Ranks({path_}, o);
    ASSERT_TRUE(got.status[0].ok()) << got.status[0].ToString();
    const auto w = Matches(want.get());
    EXPECT_EQ(AllMatches(got), w) << profile;
    size_t listed = 0;
    for (const auto& m : w) listed += m.size();
    EXPECT_GT(listed, 20u) << profile;
  }
}

// --idf corpus: each rank learns its share, the ranks merge their tables,
// and the result is one process's (rows, and the table --idf-save writes).
TEST_P(RunnerTest, LearnedIdfAsOneProcess) {
  BatchOptions o = Options("zh-news");
  o.engine.features.idf = IdfSource::kLearned;
  o.learn_idf = true;
  o.idf_save = dir_->File("single.idf");
  auto want = batch::RunWithSignature({path_}, o, nullptr);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  o.idf_save = dir_->File("ranks.idf");
  Outcome got = Ranks({path_}, o, {}, /*own_signatures=*/true);
  for (const Status& s : got.status) ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(got.result);
  const auto rows = Rows(want->get());
  EXPECT_EQ(AllRows(got), rows);
  size_t duplicates = 0;
  for (const Row& r : rows) duplicates += !r.is_kept;
  EXPECT_GT(duplicates, 20u);
  std::ifstream a(dir_->File("single.idf"), std::ios::binary),
      b(dir_->File("ranks.idf"), std::ios::binary);
  const std::string sa((std::istreambuf_iterator<char>(a)), {}),
      sb((std::istreambuf_iterator<char>(b)), {});
  EXPECT_FALSE(sa.empty());
  EXPECT_EQ(sa, sb);
  // A stream learns in arrival order, which ranks do not share: refused.
  o.engine.features.learn_idf = true;
  EXPECT_NE(Ranks({path_}, o, {}, true).status[0].message().find("--idf stream"),
            std::string::npos);
}

// Against an index: the corpus's keys split over the ranks, its lines rank
// 0's; the new records' rows, matches and counters are one process's.
TEST_P(RunnerTest, AgainstAnIndexAsOneProcess) {
  // The corpus: families of near-duplicates; the new input: other copies
  // of the same families (found against the corpus) and families of its own.
  const std::string all = Corpus(300, 21);
  size_t cut = 0;
  for (int i = 0; i < 450; ++i) cut = all.find('\n', cut) + 1;
  const std::string corpus = Write("indexed.jsonl", all.substr(0, cut));
  std::string fresh;
  for (size_t pos = 0, line = 0; pos < all.size(); ++line) {
    const size_t end = all.find('\n', pos) + 1;
    if (line % 3 == 0 || pos >= cut) fresh += all.substr(pos, end - pos);
    pos = end;
  }
  // New ids (longer than any corpus id): a corpus id again would be a repeated id.
  for (size_t pos = 0; (pos = fresh.find("{\"id\":", pos)) != std::string::npos; pos += 7) {
    fresh.insert(pos + 6, "9000000");
  }
  const std::string input = Write("new.jsonl", fresh);
  // Each rank writes its own records, with their matches or without.
  for (const auto& [profile, with_matches] :
       {std::pair{"default", true}, std::pair{"simhash", true}, std::pair{"default", false}}) {
    BatchOptions o = Options(profile);
    const std::string index = dir_->File(std::string("index-") + profile);
    if (with_matches) {  // built once a profile (the default's serves both)
      BatchStats built;
      ASSERT_TRUE(BuildBatchIndex({corpus}, index, o, &built).ok()) << profile;
    }
    o.against = index;
    o.with_matches = with_matches;
    MakeSignature(o);
    auto want = Single({input}, o);
    ASSERT_TRUE(want);
    Outcome got = Ranks({input}, o);
    for (const Status& st : got.status) ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_TRUE(got.result);
    // One pass each (a result lists its matches once): rows with matches.
    auto listing = [](BatchDedup* run, size_t* of_corpus) {
      std::vector<std::string> out;
      EXPECT_TRUE(
          run->ForEachRecord([&](const BatchRecord& r) {
               std::string row = std::string(r.id) + " " + std::string(r.cluster) + " " +
                                 std::string(r.kept) + " " + std::to_string(r.cluster_size) + " " +
                                 std::to_string(r.duplicates_corpus) + ":";
               for (const BatchMatch& x : r.matches) {
                 row += " " + std::string(x.id) + "=" + std::to_string(x.verified.value_or(-1));
               }
               *of_corpus += r.duplicates_corpus;
               out.push_back(std::move(row));
               return Status::OK();
             })
              .ok());
      return out;
    };
    size_t of_corpus = 0, ignored = 0;
    const std::vector<std::string> rows = listing(want.get(), &of_corpus);
    std::vector<std::string> got_rows = listing(got.result.get(), &ignored);
    for (const auto& share : got.shares) {
      if (!share) continue;  // rank 0's is got.result
      const std::vector<std::string> more = listing(share.get(), &ignored);
      got_rows.insert(got_rows.end(), more.begin(), more.end());
    }
    EXPECT_EQ(got_rows, rows) << profile;
    EXPECT_GT(of_corpus, 50u) << profile;  // new records that duplicate the corpus
    ExpectSameCounters(got.result->stats(), want->stats());
  }
}

TEST_P(RunnerTest, RefusesWhatItDoesNotRun) {
  BatchOptions o = Options("default");
  MakeSignature(o);
  EXPECT_NE(Ranks({"-"}, o).status[0].message().find("standard input"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Ranks, RunnerTest, ::testing::Values(1, 2, 3, 4));

}  // namespace
}  // namespace neardup::distributed
