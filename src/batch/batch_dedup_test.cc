// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "base/sanitizers.h"
#include "batch/jsonl.h"
#include "batch/pipeline.h"
#include "neardup/batch.h"
#include "neardup/ids.h"

namespace neardup {
namespace {

// UTF-8 of BMP code points of three bytes (the Han characters used here).
std::string Utf8(const std::u32string& s) {
  std::string o;
  for (char32_t c : s) {
    o += static_cast<char>(0xE0 | (c >> 12));
    o += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    o += static_cast<char>(0x80 | (c & 0x3F));
  }
  return o;
}

// Families of near-duplicate Chinese-like questions: a base text, copies
// with one or two characters changed, and hard negatives with another
// number. Deterministic for a seed.
std::string Corpus(int families, uint64_t seed, std::vector<std::string>* ids = nullptr) {
  std::mt19937_64 rng(seed);
  const std::u32string han =
      U"的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学"
      U"对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头"
      U"面公同三已老从动两长";
  auto pick = [&] { return han[rng() % han.size()]; };
  std::ostringstream out;
  int line = 0;
  for (int f = 0; f < families; ++f) {
    std::u32string base;
    const int len = 20 + static_cast<int>(rng() % 40);
    for (int i = 0; i < len; ++i) base += pick();
    const int number = static_cast<int>(rng() % 1000);
    const int copies = 1 + static_cast<int>(rng() % 4);
    for (int c = 0; c < copies; ++c) {
      std::u32string t = base;
      if (c > 0) t[rng() % t.size()] = pick();
      const int n = c == copies - 1 && rng() % 3 == 0 ? number + 1 : number;  // a hard negative
      const std::string id = std::to_string((line * 7919) % 100003);  // shuffled integer ids
      if (ids) ids->push_back(id);
      out << "{\"id\":" << id << ",\"text\":\"" << Utf8(t) << " 共 " << n << " 页\"}\n";
      ++line;
    }
  }
  return out.str();
}

struct Row {
  std::string id, cluster, kept;
  uint64_t size;
  bool operator==(const Row&) const = default;
};

std::vector<Row> Rows(BatchDedup* run) {
  std::vector<Row> rows;
  EXPECT_TRUE(run->ForEachRecord([&](const BatchRecord& r) {
                   rows.push_back({std::string(r.id), std::string(r.cluster), std::string(r.kept),
                                   r.cluster_size});
                   return Status::OK();
                 })
                  .ok());
  return rows;
}

class BatchDedupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = batch::TempDir::Create("");
    ASSERT_TRUE(dir.ok());
    dir_ = std::move(dir).value();
    path_ = dir_->File("corpus.jsonl");
    std::ofstream(path_) << Corpus(700, 11);
  }
  std::unique_ptr<BatchDedup> Run(BatchOptions o) {
    auto r = BatchDedup::Run({path_}, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }
  std::unique_ptr<batch::TempDir> dir_;
  std::string path_;
};

// The result does not depend on threads, memory or spilling.
TEST_F(BatchDedupTest, SameResultForAnyThreadsAndMemory) {
  for (const char* profile : {"default", "qbank", "simhash"}) {
    BatchOptions o;
    o.engine = *EngineOptions::FromProfile(profile);
    o.engine.threads = 2;
    o.memory_bytes = 1ull << 30;
    auto big = Run(o);
    ASSERT_TRUE(big);
    EXPECT_EQ(big->stats().key_runs_spilled, 0u);
    EXPECT_LE(big->stats().verify_ranges, 1u);
    const auto expected = Rows(big.get());
    ASSERT_EQ(expected.size(), big->stats().records);
    // SimHash at k=3 misses most one-character edits of short texts.
    EXPECT_GT(big->stats().multi_clusters, std::string(profile) == "simhash" ? 30u : 100u)
        << profile;
    for (int threads : {1, 2, 3}) {
      o.engine.threads = threads;
      o.memory_bytes = 1 << 20;  // forces spilling of keys and pairs
      auto small = Run(o);
      ASSERT_TRUE(small);
      EXPECT_GT(small->stats().key_runs_spilled, 0u);
      // Verified in several blocks (verification forms in memory a block at
      // a time; qbank's, the normalized texts, are the smallest: 2 blocks).
      if (big->stats().similarity_calls > 0) {
        EXPECT_GT(small->stats().verify_ranges, 1u) << profile;
        EXPECT_EQ(small->stats().similarity_calls, big->stats().similarity_calls) << profile;
      }
      EXPECT_EQ(Rows(small.get()), expected) << profile << " threads " << threads;
    }
  }
}

// The corpus with string ids, a third sharing a long prefix (their order
// keys tie, so the keep phase compares the ids themselves).
std::string WithStringIds(const std::string& corpus) {
  std::string out;
  std::istringstream in(corpus);
  int i = 0;
  for (std::string line; std::getline(in, line); ++i) {
    const size_t colon = line.find(':'), comma = line.find(',');
    const std::string n = line.substr(colon + 1, comma - colon - 1);
    const std::string id = i % 3 == 0 ? "question-" + n : i % 3 == 1 ? n : "q" + n;
    out += "{\"id\":\"" + id + "\"" + line.substr(comma) + "\n";
  }
  return out;
}

// Progress measures work done: every report of the sketch phase counts the
// records of the bytes it calls done (records of one length here, so
// records * length >= done), and the phase's last report, where it ends, has
// every byte and record. Bytes read ahead of the workers are not done.
TEST_F(BatchDedupTest, ProgressCountsWorkDone) {
  std::mt19937_64 rng(3);
  const std::u32string han =
      U"的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下";
  std::string corpus;
  const int kRecords = base::kSanitized ? 15000 : 40000;  // 10 s under ASan at 40000
  for (int i = 0; i < kRecords; ++i) {
    std::u32string t;
    for (int j = 0; j < 120; ++j) t += han[rng() % han.size()];
    corpus += "{\"text\":\"" + Utf8(t) + "\"}\n";
  }
  const uint64_t length = corpus.size() / kRecords;
  const std::string path = dir_->File("progress.jsonl");
  std::ofstream(path) << corpus;
  BatchOptions o;
  o.engine.threads = 2;
  o.memory_bytes = 64 << 20;
  std::vector<BatchProgress> sketch;
  o.progress = [&](const BatchProgress& p) {
    if (p.phase == BatchPhase::kSketch) sketch.push_back(p);
  };
  auto run = BatchDedup::Run({path}, o);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_GE(sketch.size(), 2u);  // where it starts and where it ends
  for (size_t i = 0; i < sketch.size(); ++i) {
    EXPECT_GE(sketch[i].records * length, sketch[i].done) << "report " << i;
    EXPECT_LE(sketch[i].done, sketch[i].total);
    if (i > 0) {
      EXPECT_GE(sketch[i].done, sketch[i - 1].done);
    }
  }
  EXPECT_EQ(sketch.back().total, corpus.size());
  EXPECT_EQ(sketch.back().done, sketch.back().total);
  EXPECT_EQ(sketch.back().records, uint64_t{kRecords});
}

TEST_F(BatchDedupTest, KeepPolicies) {
  BatchOptions o;
  o.engine = *EngineOptions::FromProfile("qbank");
  const std::string string_ids = dir_->File("string-ids.jsonl");
  std::ofstream(string_ids) << WithStringIds(Corpus(700, 11));
  for (int variant = 0; variant < 4; ++variant) {
    const KeepPolicy keep = variant == 0   ? KeepPolicy::kFirst
                            : variant == 2 ? KeepPolicy::kLongest
                                           : KeepPolicy::kSmallestId;
    o.engine.keep = keep;
    o.memory_bytes = 0;
    if (variant == 3) path_ = string_ids;
    auto run = Run(o);
    ASSERT_TRUE(run);
    // A budget too small for the keep phase's keys: the same result.
    o.memory_bytes = 1 << 20;
    auto small = Run(o);
    ASSERT_TRUE(small);
    EXPECT_EQ(Rows(small.get()), Rows(run.get())) << variant;
    auto labels = run->RecordLabels();
    ASSERT_TRUE(labels.ok());
    const auto rows = Rows(run.get());
    std::map<std::string, std::vector<size_t>> members;
    for (size_t i = 0; i < rows.size(); ++i) members[rows[i].cluster].push_back(i);
    for (const auto& [cluster, m] : members) {
      EXPECT_EQ(rows[m.front()].id, cluster);  // the cluster is named by its first member
      for (size_t i : m) {
        EXPECT_EQ(rows[i].kept, rows[labels->kept[i]].id);
        if (keep == KeepPolicy::kFirst) {
          EXPECT_EQ(labels->kept[i], m.front());
        }
        if (keep == KeepPolicy::kSmallestId) {
          for (size_t j : m) {
            EXPECT_FALSE(IdLess(rows[j].id, rows[i].kept));
          }
        }
      }
    }
  }
}

// A signature from outside the engine: the pipeline only needs keys and a
// similarity. Keys: the text's first character; similar when the last
// characters are equal. Buckets larger than the star width still pair
// every member with the first ones.
class FirstCharSignature final : public batch::BatchSignature {
 public:
  FirstCharSignature() : spaces_{{"first-char", -1, false}} {}
  const std::vector<batch::KeySpace>& spaces() const override { return spaces_; }
  size_t max_keys() const override { return 1; }
  std::unique_ptr<batch::SignatureScratch> NewScratch() const override {
    return std::make_unique<batch::SignatureScratch>();
  }
  Status Keys(std::string_view text, batch::SignatureScratch*, batch::KeySink* out) const override {
    if (!text.empty()) out->Add(0, static_cast<unsigned char>(text[0]) * 0x9E3779B97F4A7C15ull);
    return Status::OK();
  }
  Result<double> Similarity(const batch::DocText& a, const batch::DocText& b,
                            batch::SignatureScratch*) const override {
    ++calls;
    return a.text.back() == b.text.back() ? 1.0 : 0.0;
  }
  double threshold() const override { return 0.5; }
  std::string identity() const override { return "first-char v1"; }
  mutable std::atomic<int> calls{0};

 private:
  std::vector<batch::KeySpace> spaces_;
};

TEST_F(BatchDedupTest, PluggableSignatureAndStarPairing) {
  std::string data;
  for (int i = 0; i < 30; ++i)
    data += "{\"id\":" + std::to_string(i) + ",\"text\":\"k" + "xyz"[i % 3] + "\"}\n";
  const std::string path = dir_->File("star.jsonl");
  std::ofstream(path) << data;
  FirstCharSignature sig;
  BatchOptions o;
  auto run = batch::RunWithSignature({path}, o, &sig);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  // One bucket of 30: each member pairs with the first 8 (all pairs among
  // the first 9): 8*9/2 + 21*8 = 204 similarity calls.
  EXPECT_EQ(sig.calls.load(), 36 + 21 * 8);
  const auto rows = Rows(run->get());
  ASSERT_EQ(rows.size(), 30u);
  for (int i = 0; i < 30; ++i) {
    EXPECT_EQ(rows[i].cluster, std::to_string(i % 3)) << i;
    EXPECT_EQ(rows[i].size, 10u);
  }
}

TEST_F(BatchDedupTest, RepeatedIdsAndBadLines) {
  const std::string path = dir_->File("bad.jsonl");
  std::ofstream(path) << "{\"id\":\"a\",\"text\":\"x\"}\n\n{\"id\":\"b\",\"text\":\"y\"}\n"
                         "{\"id\":\"a\",\"text\":\"z\"}\n{\"id\":1,\"text\":\"y\"}\n"
                         "{\"id\":\"1\",\"text\":\"y\"}\n";
  BatchOptions o;
  auto run = BatchDedup::Run({path}, o);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find(path + ":4"), std::string::npos) << run.status().message();
  EXPECT_NE(run.status().message().find("already exists"), std::string::npos);
  std::vector<std::string> skipped;
  o.skip_invalid = true;
  o.on_skip = [&](const Status& s) { skipped.push_back(s.message()); };
  auto ok = BatchDedup::Run({path}, o);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ((*ok)->stats().records, 4u);  // 1 and "1" are different ids
  const auto rows = Rows(ok->get());
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].id, "\"a\"");
  // The first bad line in input order is reported, whatever the threads.
  std::ofstream(path) << "{\"id\":1,\"text\":\"x\"}\n{\"id\":2,\"text\":\"x\"\n{\"id\":3}\n";
  o.skip_invalid = false;
  for (int t : {1, 2}) {
    o.engine.threads = t;
    auto bad = BatchDedup::Run({path}, o);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().message(), path + ":2: malformed JSON");
  }
}

TEST_F(BatchDedupTest, ForEachRecordRepeatsWithoutMatchesAndRunsOnceWithThem) {
  BatchOptions o;
  o.engine.threads = 2;
  auto run = Run(o);
  ASSERT_TRUE(run);
  const auto first = Rows(run.get());
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(Rows(run.get()), first);  // the records are re-read
  o.with_matches = true;
  auto with = Run(o);
  ASSERT_TRUE(with);
  uint64_t matches = 0;
  auto count = [&](const BatchRecord& r) {
    matches += r.matches.size();
    return Status::OK();
  };
  ASSERT_TRUE(with->ForEachRecord(count).ok());
  EXPECT_GT(matches, 0u);
  const Status again = with->ForEachRecord(count);
  EXPECT_EQ(again.code(), StatusCode::kFailedPrecondition) << again.ToString();
}

// The id rule (neardup/ids.h): the integer 7 and the string "7" are two ids,
// the integer smaller, whichever comes first.
TEST_F(BatchDedupTest, IntegerIdsSortBeforeEqualStrings) {
  const std::string path = dir_->File("ids.jsonl");
  const std::string text = "\"text\":\"the same question text, copied word for word\"}\n";
  std::ofstream(path) << "{\"id\":\"7\"," << text << "{\"id\":7," << text;
  BatchOptions o;
  o.engine.keep = KeepPolicy::kSmallestId;
  auto run = BatchDedup::Run({path}, o);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  const auto rows = Rows(run->get());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].id, "\"7\"");
  EXPECT_EQ(rows[1].id, "7");
  EXPECT_EQ(rows[0].size, 2u);
  EXPECT_EQ(rows[0].cluster, "\"7\"");  // the first member
  EXPECT_EQ(rows[0].kept, "7");         // the smallest id
}

// qbank salts its band keys with the exact part (digits, letters, operators):
// a question with another number is never a candidate, while the default
// (no salt) still proposes it and lets the verifier decide.
TEST_F(BatchDedupTest, QbankCandidatesShareTheExactPart) {
  const std::string path = dir_->File("q.jsonl");
  std::ofstream(path)
      << "{\"id\":1,\"text\":\"某商店上午卖出苹果 35 千克，下午卖出的比上午多 12 千克，"
         "这一天共卖出苹果多少千克？\"}\n"
         "{\"id\":2,\"text\":\"某商店上午卖出苹果 35 千克，下午卖出的比上午多 17 千克，"
         "这一天共卖出苹果多少千克？\"}\n"
         "{\"id\":3,\"text\":\"某商店上午卖出梨 35 千克，下午卖出的比上午多 12 千克，"
         "这一天共卖出梨多少千克？\"}\n";
  BatchOptions o;
  o.engine = *EngineOptions::FromProfile("qbank");
  auto q = BatchDedup::Run({path}, o);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ((*q)->stats().candidate_pairs, 1u);  // 1-3 only: 2 has another number
  EXPECT_EQ((*q)->stats().edges, 1u);
  o.engine.verify.qbank_other_min = 0.5;  // a loose rule: no salt, every pair proposed
  auto loose = BatchDedup::Run({path}, o);
  ASSERT_TRUE(loose.ok()) << loose.status().ToString();
  EXPECT_EQ((*loose)->stats().candidate_pairs, 3u);
}

// min_shared_keys 0 is the pipeline's choice: qbank verifies only pairs that
// share two bands, other profiles any pair.
TEST_F(BatchDedupTest, MinSharedKeysFollowsTheProfile) {
  // Pairs that share half their text (2-gram Jaccard ~0.3): some collide in
  // one band by chance, few in two.
  std::mt19937_64 rng(3);
  const std::u32string han =
      U"的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生";
  auto text = [&](int n) {
    std::u32string s;
    for (int i = 0; i < n; ++i) s += han[rng() % han.size()];
    return s;
  };
  const std::string path = dir_->File("half.jsonl");
  {
    std::ofstream out(path);
    for (int i = 0; i < 400; ++i) {
      const std::u32string base = text(40);
      out << "{\"text\":\"" << Utf8(base) << " 5\"}\n";
      out << "{\"text\":\"" << Utf8(base.substr(0, 20) + text(20)) << " 5\"}\n";
    }
  }
  BatchOptions o;
  o.engine = *EngineOptions::FromProfile("qbank");
  EXPECT_EQ(EffectiveMinSharedKeys(o), 2u);
  auto two = BatchDedup::Run({path}, o);
  BatchOptions small = o;  // spills keys, with the filter on (its bytes fit)
  small.memory_bytes = 256 << 10;
  small.tmp_dir = dir_->path();
  auto two_spilled = BatchDedup::Run({path}, small);
  o.key_filter = false;
  auto two_unfiltered = BatchDedup::Run({path}, o);
  o.min_shared_keys = 1;
  EXPECT_EQ(EffectiveMinSharedKeys(o), 1u);
  auto one = BatchDedup::Run({path}, o);
  ASSERT_TRUE(two.ok() && two_unfiltered.ok() && one.ok());
  // Unfiltered, both see the same distinct pairs; two shared keys verify fewer.
  EXPECT_EQ((*two_unfiltered)->stats().candidate_pairs, (*one)->stats().candidate_pairs);
  EXPECT_EQ((*two_unfiltered)->stats().pairs_filtered, 0u);
  EXPECT_GT((*one)->stats().similarity_calls, 40u);
  EXPECT_LT((*two)->stats().similarity_calls * 3, (*one)->stats().similarity_calls);
  // The key filter drops most pairs at generation and changes nothing else.
  EXPECT_GT((*two)->stats().pairs_filtered, 0u);
  EXPECT_LT((*two)->stats().candidate_pairs, (*one)->stats().candidate_pairs);
  EXPECT_EQ((*two)->stats().similarity_calls, (*two_unfiltered)->stats().similarity_calls);
  EXPECT_EQ((*two)->stats().edges, (*two_unfiltered)->stats().edges);
  auto la = (*two)->RecordLabels();
  auto lb = (*two_unfiltered)->RecordLabels();
  ASSERT_TRUE(la.ok() && lb.ok());
  EXPECT_EQ(la->cluster, lb->cluster);
  EXPECT_EQ(la->kept, lb->kept);
  ASSERT_TRUE(two_spilled.ok());
  EXPECT_GT((*two_spilled)->stats().key_runs_spilled, 0u);
  EXPECT_EQ((*two_spilled)->stats().pairs_filtered, (*two)->stats().pairs_filtered);
  auto lc = (*two_spilled)->RecordLabels();
  ASSERT_TRUE(lc.ok());
  EXPECT_EQ(lc->cluster, la->cluster);
  EXPECT_EQ(lc->kept, la->kept);
  BatchOptions d;
  EXPECT_EQ(EffectiveMinSharedKeys(d), 1u);
  d.engine = *EngineOptions::FromProfile("simhash");
  EXPECT_EQ(EffectiveMinSharedKeys(d), 1u);
}

TEST_F(BatchDedupTest, InMemoryDocuments) {
  std::vector<Document> docs = {{"7", "the same text here", 0},
                                {"\"x\"", "something else entirely", 0},
                                {"3", "the same text here", 0}};
  BatchOptions o;
  o.engine.keep = KeepPolicy::kSmallestId;
  auto l = BatchClusterDocuments(docs, o);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_EQ(l->cluster, (std::vector<uint32_t>{0, 1, 0}));
  EXPECT_EQ(l->kept, (std::vector<uint32_t>{2, 1, 2}));  // id 3 < id 7
  EXPECT_EQ(l->size, (std::vector<uint32_t>{2, 1, 2}));
  // Ids that are not canonical integers (leading zeros) are strings, not bad JSON.
  docs = {{"007", "x y z", 0}, {"-0", "x y z", 0}, {"", "other", 0}};
  auto odd = BatchClusterDocuments(docs, o);
  ASSERT_TRUE(odd.ok()) << odd.status().ToString();
  EXPECT_EQ(odd->cluster, (std::vector<uint32_t>{0, 0, 2}));
}

// Options past the machine are refused before any work, by every entry
// point, instead of aborting in an allocation or a thread start.
TEST_F(BatchDedupTest, OptionsPastTheMachineAreInvalidArguments) {
  BatchOptions huge;
  huge.memory_bytes = uint64_t{64} << 40;  // 64 TiB
  BatchOptions threads;
  threads.engine.threads = 100000;
  for (const BatchOptions& o : {huge, threads}) {
    EXPECT_TRUE(ValidateBatchOptions(o).IsInvalidArgument());
    EXPECT_TRUE(BatchDedup::Run({path_}, o).status().IsInvalidArgument());
    const std::vector<Document> docs = {{"1", "a text", 0}};
    EXPECT_TRUE(BatchClusterDocuments(docs, o).status().IsInvalidArgument());
    EXPECT_TRUE(BuildBatchIndex({path_}, dir_->File("index"), o).IsInvalidArgument());
  }
  EXPECT_TRUE(ValidateBatchOptions(BatchOptions{}).ok());
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

std::string RandomHan(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::u32string s;
  for (size_t i = 0; i < n; ++i) s += static_cast<char32_t>(0x4E00 + rng() % 8000);
  return Utf8(s);
}

// A site: twelve long stories under one footer, a page of the footer alone,
// three short stories under it, and a copy of a long story.
std::string TrapCorpus() {
  const std::string footer = RandomHan(280, 99);
  std::ostringstream out;
  auto page = [&](const std::string& id, const std::string& story) {
    out << "{\"id\":\"" << id << "\",\"text\":\"" << story << "。" << footer << "\"}\n";
  };
  for (int i = 0; i < 12; ++i) page("long" + std::to_string(i), RandomHan(500, 100 + i));
  page("bare", "");
  for (int i = 0; i < 3; ++i) page("short" + std::to_string(i), RandomHan(60, 200 + i));
  page("copy", RandomHan(500, 103));
  return out.str();
}

TEST_F(BatchDedupTest, TheBoilerplateGuardSplitsAFootersChain) {
  const std::string path = dir_->File("trap.jsonl");
  std::ofstream(path) << TrapCorpus();
  auto cluster_of = [&](BatchOptions o) {
    auto run = BatchDedup::Run({path}, o);
    EXPECT_TRUE(run.ok()) << run.status().ToString();
    std::map<std::string, std::string> c;
    for (const Row& r : Rows(run->get())) c[r.id] = r.cluster;
    EXPECT_GT((*run)->stats().boilerplate_founders, 0u);
    return c;
  };
  BatchOptions o;
  std::map<std::string, std::string> on = cluster_of(o);
  auto q = [](std::string id) { return "\"" + id + "\""; };  // ids are JSON
  for (const char* id : {"bare", "short0", "short1", "short2"}) EXPECT_EQ(on[q(id)], q(id)) << id;
  EXPECT_EQ(on[q("copy")], q("long3"));
  // Spilled and on one thread: the same clusters.
  BatchOptions small = o;
  small.engine.threads = 1;
  small.memory_bytes = 256 << 10;
  small.tmp_dir = dir_->path();
  EXPECT_EQ(cluster_of(small), on);
  o.engine.verify.boilerplate_documents = 0;  // off: the bare page chains the short stories
  o.engine.verify.containment = 0;            // (and with containment, the first long one)
  auto run = BatchDedup::Run({path}, o);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ((*run)->stats().boilerplate_founders, 0u);
  for (const Row& r : Rows(run->get())) {
    if (r.id.starts_with("\"short")) {
      EXPECT_EQ(r.cluster, q("bare")) << r.id;
    }
  }
}

}  // namespace
}  // namespace neardup
