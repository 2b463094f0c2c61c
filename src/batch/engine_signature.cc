// SPDX-License-Identifier: Apache-2.0
#include "batch/engine_signature.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "base/sorted_set.h"
#include "base/status_macros.h"
#include "engine/pipeline.h"
#include "engine/signals.h"
#include "resources/data_dir.h"
#include "signal/signal.h"
#include "sketch/exact_hash.h"
#include "sketch/imatch.h"
#include "sketch/lsh.h"
#include "sketch/minhash.h"
#include "sketch/simhash.h"
#include "sketch/spotsig.h"
#include "sketch/supershingle.h"
#include "verify/verifier.h"

namespace neardup::batch {
namespace {

constexpr size_t kSpotSigKeys = 64;

uint64_t Mix(uint64_t seed, uint64_t v) {
  const uint64_t in[2] = {seed, v};
  return XXH3_64bits(in, sizeof in);
}

// Every subset of `m` of the positions 0..n-1, as bit masks, in increasing order.
std::vector<uint32_t> Subsets(int n, int m) {
  std::vector<uint32_t> out;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (__builtin_popcount(mask) == m) out.push_back(mask);
  }
  return out;
}

struct Scratch final : SignatureScratch {
  engine::Processed p;
  std::vector<uint32_t> sig, sig2;
  // The cached normalized sides of Similarity() (pairs come in runs of
  // equal a, or of equal b in blocked verification).
  uint32_t a_doc = UINT32_MAX, b_doc = UINT32_MAX;
  std::string a_norm, b_norm;
  // The shingles of a side's text, cached the same way.
  uint32_t a_shingles_doc = UINT32_MAX, b_shingles_doc = UINT32_MAX;
  std::vector<uint64_t> a_shingles, b_shingles;
};

}  // namespace

struct EngineSignature::Impl {
  EngineOptions options;
  bool learn_first = false;
  std::unique_ptr<engine::Pipeline> pipeline;
  std::unique_ptr<verify::Verifier> verifier;  // null: signals decide
  std::vector<KeySpace> spaces;
  std::vector<SignalKind> kinds;  // per space
  size_t max_keys = 0;
  // minhash
  std::optional<sketch::MinHasher> minhasher;
  sketch::LshParams lsh;
  // simhash
  int k = 3;
  std::vector<uint64_t> block_masks;  // k+2 blocks of the fingerprint
  std::vector<uint32_t> block_pairs;  // pairs of blocks, as masks over blocks
  // supershingle
  std::optional<sketch::SuperShingler> super;
  std::vector<uint32_t> super_sets;
  // imatch, spotsig
  std::shared_ptr<const sketch::IMatcher> imatch;
  std::optional<sketch::SpotSigExtractor> spotsig;

  Status AddKeys(size_t space, const engine::Processed& p, Scratch* s, KeySink* out) const;
  Status Normalize(const DocText& d, std::string* out) const {
    return pipeline->Normalize(d.text, out);
  }
  // The similarity of two normalized texts (shingles cached on the docs).
  double Compare(uint32_t a_doc, std::string_view a_norm, uint32_t b_doc, std::string_view b_norm,
                 Scratch* s) const;
};

Result<std::unique_ptr<EngineSignature>> EngineSignature::Create(const EngineOptions& o,
                                                                 bool learn_first) {
  auto m = std::make_unique<Impl>();
  m->options = o;
  m->learn_first = learn_first;
  NEARDUP_RETURN_IF_ERROR(engine::CheckSignalOptions(o));
  NEARDUP_ASSIGN_OR_RETURN(const signal::SignalOptions so, engine::MakeSignalOptions(o));
  if (o.signals.size() > static_cast<size_t>(kMaxSpaces)) {
    return Status::InvalidArgument("too many signals");
  }
  const engine::PipelineNeeds needs = engine::NeedsOf(o);
  NEARDUP_ASSIGN_OR_RETURN(m->pipeline,
                           engine::Pipeline::Create(o, needs.features, needs.shingles));
  NEARDUP_ASSIGN_OR_RETURN(m->verifier, engine::BuildVerifier(o));
  const bool decide = m->verifier == nullptr;
  for (SignalKind kind : o.signals) {
    KeySpace sp{std::string(Name(kind)), -1, decide};
    switch (kind) {
      case SignalKind::kExact:
        m->max_keys += 1;
        sp.slots = 1;
        break;
      case SignalKind::kMinHash: {
        m->lsh = so.minhash_lsh;
        NEARDUP_ASSIGN_OR_RETURN(auto h,
                                 sketch::MinHasher::Create({.num_perm = o.minhash.num_perm}));
        m->minhasher.emplace(std::move(h));
        m->max_keys += static_cast<size_t>(m->lsh.bands);
        sp.slots = m->lsh.bands;  // LshBandKey is seeded by the band
        break;
      }
      case SignalKind::kSimHash: {
        m->k = so.simhash_max_distance;
        const int blocks = m->k + 2;
        for (int b = 0; b < blocks; ++b) {
          const int lo = 64 * b / blocks, hi = 64 * (b + 1) / blocks;
          m->block_masks.push_back(hi - lo == 64 ? ~0ULL : ((1ULL << (hi - lo)) - 1) << lo);
        }
        m->block_pairs =
            blocks <= 2 ? std::vector<uint32_t>{(1u << blocks) - 1} : Subsets(blocks, 2);
        sp.max_distance = m->k;
        m->max_keys += m->block_pairs.size();
        sp.slots = static_cast<int>(m->block_pairs.size());  // Mix() is seeded by the pair
        break;
      }
      case SignalKind::kSuperShingle: {
        NEARDUP_ASSIGN_OR_RETURN(
            auto ss, sketch::SuperShingler::Create({.min_equal = o.supershingle.min_equal}));
        m->super_sets = Subsets(ss.options().groups, ss.options().min_equal);
        m->super.emplace(std::move(ss));
        m->max_keys += m->super_sets.size();
        sp.slots = static_cast<int>(m->super_sets.size());  // each hash starts from its set
        break;
      }
      case SignalKind::kIMatch: {
        m->imatch = so.imatch;
        m->max_keys += 1 + static_cast<size_t>(std::max(0, o.imatch.extra_lexicons));
        break;
      }
      case SignalKind::kSpotSig: {
        sketch::SpotSigOptions spot = sketch::EnglishSpotSigOptions();
        if (!so.spotsig_stop_words.empty()) {
          NEARDUP_ASSIGN_OR_RETURN(spot, sketch::ChineseSpotSigOptions(so.spotsig_stop_words));
        }
        NEARDUP_ASSIGN_OR_RETURN(auto ex, sketch::SpotSigExtractor::Create(spot));
        m->spotsig.emplace(std::move(ex));
        sp.decides = false;  // the Jaccard of the whole sets decides
        m->max_keys += kSpotSigKeys;
        break;
      }
    }
    m->spaces.push_back(std::move(sp));
    m->kinds.push_back(kind);
  }
  return std::unique_ptr<EngineSignature>(new EngineSignature(std::move(m)));
}

EngineSignature::EngineSignature(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EngineSignature::~EngineSignature() = default;

const std::vector<KeySpace>& EngineSignature::spaces() const { return impl_->spaces; }
size_t EngineSignature::max_keys() const { return impl_->max_keys; }
std::unique_ptr<SignatureScratch> EngineSignature::NewScratch() const {
  return std::make_unique<Scratch>();
}

Status EngineSignature::Impl::AddKeys(size_t space, const engine::Processed& p, Scratch* s,
                                      KeySink* out) const {
  const auto sp = static_cast<uint32_t>(space);
  switch (kinds[space]) {
    case SignalKind::kExact:
      out->Add(sp, sketch::ExactHash(p.normalized).lo);
      break;
    case SignalKind::kMinHash:
      if (p.shingles.empty()) break;
      s->sig.resize(static_cast<size_t>(minhasher->num_perm()));
      minhasher->Sketch(p.shingles, s->sig);
      for (int b = 0; b < lsh.bands; ++b) {
        out->Add(sp, sketch::SaltedBandKey(sketch::LshBandKey(s->sig, lsh, b), p.key_salt));
      }
      break;
    case SignalKind::kSimHash: {
      const uint64_t fp = sketch::SimHash(p.features);
      out->SetPayload(fp);
      for (uint32_t pair : block_pairs) {
        uint64_t mask = 0;
        for (size_t b = 0; b < block_masks.size(); ++b) {
          if (pair >> b & 1) mask |= block_masks[b];
        }
        out->Add(sp, Mix(pair, fp & mask));
      }
      break;
    }
    case SignalKind::kSuperShingle: {
      if (p.shingles.empty()) break;
      const std::vector<uint64_t> ss = super->Sketch(p.shingles);
      for (uint32_t set : super_sets) {
        uint64_t h = set;
        for (size_t g = 0; g < ss.size(); ++g) {
          if (set >> g & 1) h = Mix(h, ss[g]);
        }
        out->Add(sp, h);
      }
      break;
    }
    case SignalKind::kIMatch: {
      std::vector<uint64_t> terms;
      terms.reserve(p.features.size());
      for (const auto& f : p.features) terms.push_back(f.hash);
      const auto sigs = imatch->Signatures(terms);
      for (size_t i = 0; i < sigs.size(); ++i) {
        if (sigs[i]) out->Add(sp, Mix(i, sigs[i]->lo ^ sigs[i]->hi));
      }
      break;
    }
    case SignalKind::kSpotSig: {
      const std::vector<uint64_t> sigs = spotsig->Extract(p.normalized);  // sorted, distinct
      for (size_t i = 0; i < sigs.size() && i < kSpotSigKeys; ++i) out->Add(sp, sigs[i]);
      break;
    }
  }
  return Status::OK();
}

Status EngineSignature::Keys(std::string_view text, SignatureScratch* scratch, KeySink* out) const {
  auto* s = static_cast<Scratch*>(scratch);
  NEARDUP_RETURN_IF_ERROR(impl_->pipeline->Process(text, &s->p));
  for (size_t i = 0; i < impl_->spaces.size(); ++i) {
    NEARDUP_RETURN_IF_ERROR(impl_->AddKeys(i, s->p, s, out));
  }
  return Status::OK();
}

Result<double> EngineSignature::Similarity(const DocText& a, const DocText& b,
                                           SignatureScratch* scratch) const {
  auto* s = static_cast<Scratch*>(scratch);
  if (s->a_doc != a.doc) {
    s->a_doc = UINT32_MAX;
    NEARDUP_RETURN_IF_ERROR(impl_->Normalize(a, &s->a_norm));
    s->a_doc = a.doc;
  }
  if (s->b_doc != b.doc) {
    s->b_doc = UINT32_MAX;
    NEARDUP_RETURN_IF_ERROR(impl_->Normalize(b, &s->b_norm));
    s->b_doc = b.doc;
  }
  return impl_->Compare(a.doc, s->a_norm, b.doc, s->b_norm, s);
}

Status EngineSignature::Prepare(std::string_view text, SignatureScratch*, std::string* out) const {
  return impl_->pipeline->Normalize(text, out);
}

Result<double> EngineSignature::SimilarityPrepared(const DocText& a, const DocText& b,
                                                   SignatureScratch* scratch) const {
  return impl_->Compare(a.doc, a.text, b.doc, b.text, static_cast<Scratch*>(scratch));
}

double EngineSignature::Impl::Compare(uint32_t a_doc, std::string_view a_norm, uint32_t b_doc,
                                      std::string_view b_norm, Scratch* s) const {
  if (verifier) {
    verify::Side sa{a_norm}, sb{b_norm};
    if (verifier->uses_shingles()) {
      if (s->a_shingles_doc != a_doc) {
        verifier->shingler().Shingle(a_norm, &s->a_shingles);
        s->a_shingles_doc = a_doc;
      }
      if (s->b_shingles_doc != b_doc) {
        verifier->shingler().Shingle(b_norm, &s->b_shingles);
        s->b_shingles_doc = b_doc;
      }
      sa.shingles = std::span<const uint64_t>(s->a_shingles);
      sb.shingles = std::span<const uint64_t>(s->b_shingles);
    }
    const verify::Verdict v = verifier->Verify(sa, sb);
    // A rule can fail a pair whose similarity reaches the threshold (qbank:
    // the non-Han parts differ); keep "near-duplicate iff >= threshold".
    if (!v.passed && v.similarity >= verifier->threshold()) {
      return std::nextafter(verifier->threshold(), -1.0);
    }
    return v.similarity;
  }
  // No verifier: only spotsig pairs get here; the Jaccard of the signature sets.
  if (!spotsig) return 1.0;
  const std::vector<uint64_t> x = spotsig->Extract(a_norm), y = spotsig->Extract(b_norm);
  return SortedSetJaccard(std::span<const uint64_t>(x), std::span<const uint64_t>(y));
}

double EngineSignature::threshold() const {
  if (impl_->verifier) return impl_->verifier->threshold();
  return impl_->options.spotsig.threshold;
}

std::string EngineSignature::identity() const { return PipelineIdentity(impl_->options); }

bool EngineSignature::wants_learning() const {
  return impl_->learn_first && impl_->pipeline->learned_idf() != nullptr;
}

Status EngineSignature::Learn(std::string_view text, SignatureScratch*) const {
  return impl_->pipeline->Learn(text);
}

Status EngineSignature::LoadState(const std::string& path) {
  auto df = impl_->pipeline->learned_idf();
  if (!df)
    return Status::FailedPrecondition("no learned document frequencies (idf is not learned)");
  return df->Load(path);
}

Status EngineSignature::SaveState(const std::string& path) const {
  auto df = impl_->pipeline->learned_idf();
  if (!df)
    return Status::FailedPrecondition("no learned document frequencies (idf is not learned)");
  return df->Save(path);
}

Result<PairEvidence> EngineSignature::Explain(const DocText& a, const DocText& b,
                                              SignatureScratch* scratch) const {
  const Impl& m = *impl_;
  auto* s = static_cast<Scratch*>(scratch);
  engine::Processed pa, pb;
  NEARDUP_RETURN_IF_ERROR(m.pipeline->Process(a.text, &pa));
  NEARDUP_RETURN_IF_ERROR(m.pipeline->Process(b.text, &pb));
  for (size_t i = 0; i < m.spaces.size(); ++i) {
    PairEvidence e;
    e.space = static_cast<int>(i);
    switch (m.kinds[i]) {
      case SignalKind::kExact:
        if (sketch::ExactHash(pa.normalized) == sketch::ExactHash(pb.normalized)) {
          e.distance = 0;
          e.similarity = 1.0;
          return e;
        }
        break;
      case SignalKind::kSimHash: {
        const int d = PayloadDistance(sketch::SimHash(pa.features), sketch::SimHash(pb.features));
        if (d <= m.k) {
          e.distance = d;
          e.similarity = 1.0 - d / 64.0;
          return e;
        }
        break;
      }
      case SignalKind::kMinHash: {
        if (pa.shingles.empty() || pb.shingles.empty() || pa.key_salt != pb.key_salt) break;
        s->sig.resize(static_cast<size_t>(m.minhasher->num_perm()));
        s->sig2.resize(s->sig.size());
        m.minhasher->Sketch(pa.shingles, s->sig);
        m.minhasher->Sketch(pb.shingles, s->sig2);
        int equal = 0;
        for (int band = 0; band < m.lsh.bands; ++band) {
          equal +=
              sketch::LshBandKey(s->sig, m.lsh, band) == sketch::LshBandKey(s->sig2, m.lsh, band);
        }
        if (equal > 0) {
          // k of b bands equal estimates s^r = k/b (as the online signal).
          e.similarity = std::pow(static_cast<double>(equal) / m.lsh.bands, 1.0 / m.lsh.rows);
          return e;
        }
        break;
      }
      default: {
        // Shared keys of this space (supershingle, imatch, spotsig).
        std::vector<uint64_t> ka(m.max_keys), kb(m.max_keys);
        KeySink sa(ka.data(), ka.size()), sb(kb.data(), kb.size());
        NEARDUP_RETURN_IF_ERROR(m.AddKeys(i, pa, s, &sa));
        NEARDUP_RETURN_IF_ERROR(m.AddKeys(i, pb, s, &sb));
        ka.resize(sa.size());
        kb.resize(sb.size());
        std::sort(ka.begin(), ka.end());
        std::sort(kb.begin(), kb.end());
        const size_t shared =
            SortedIntersectionSize(std::span<const uint64_t>(ka), std::span<const uint64_t>(kb));
        if (shared == 0) break;
        if (m.kinds[i] == SignalKind::kSpotSig) {
          const auto x = m.spotsig->Extract(pa.normalized), y = m.spotsig->Extract(pb.normalized);
          e.similarity =
              SortedSetJaccard(std::span<const uint64_t>(x), std::span<const uint64_t>(y));
        } else if (m.kinds[i] == SignalKind::kSuperShingle) {
          const int groups = m.super->options().groups;
          const int eq = sketch::CountEqualSuperShingles(m.super->Sketch(pa.shingles),
                                                         m.super->Sketch(pb.shingles));
          e.distance = groups - eq;
          e.similarity = static_cast<double>(eq) / groups;
        } else {
          e.similarity = static_cast<double>(shared) / std::max(ka.size(), kb.size());
        }
        return e;
      }
    }
  }
  return PairEvidence{};
}

Result<std::unique_ptr<BatchSignature>> CreateBatchSignature(const EngineOptions& options,
                                                             bool learn_first) {
  NEARDUP_ASSIGN_OR_RETURN(auto sig, EngineSignature::Create(options, learn_first));
  return std::unique_ptr<BatchSignature>(std::move(sig));
}

}  // namespace neardup::batch
