// Split-KV and packed GQA on the CPU: the kernels' own index arithmetic and combine rule
// (families/attention/kernels/split_kv.h, compiled here by the host compiler) drive an emulation of the
// algorithm, tile by tile and chunk by chunk, in fp32 as the kernels compute it; the combined result must
// match the fp64 CPU reference. Covers decode, sq < skv causal, GQA 32:8, MQA, tails, the LSE, and
// splits that leave chunks empty; and shows that the comparison catches a lost chunk.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <random>
#include <vector>

#include "families/attention/host/attention_cpu_reference.h"
#include "runtime/float16.h"
#include "families/attention/host/attention_family.h"
#include "families/attention/kernels/split_kv.h"

using namespace evotune;
using attention::Problem;

namespace {

struct Emulated {
  std::vector<double> out, lse;  // [b, hq, sq, d], [b, hq, sq]
  int empty_chunks = 0;          // chunks (CTAs) that saw no K/V block
  int chunks = 0;
};

struct Tiling {
  int block_m, block_n, splits;
  bool packed;
};

std::vector<float> random_inputs(std::int64_t n, bool fp16, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(static_cast<std::size_t>(n));
  for (float& v : x) {
    const float r = normal(rng);
    v = fp16 ? runtime::half_bits_to_float(runtime::float_to_half_bits(r))
             : runtime::bf16_bits_to_float(runtime::float_to_bf16_bits(r));
  }
  return x;
}

// The kernel's algorithm on the CPU: for every CTA (tile, chunk, CTA head, batch) the K/V blocks it visits
// (split_kv.h's tile_blocks), an fp32 online softmax over them with bottom-right causal masking, and the
// chunk's normalized partial output and LSE; then split_kv.h's combine per row. `drop_chunk` >= 0 leaves
// that chunk out of the combine (to show the comparison notices).
Emulated emulate(const Problem& p, const Tiling& t, const std::vector<float>& q, const std::vector<float>& k,
                 const std::vector<float>& v, int drop_chunk = -1) {
  const int group = p.group(), d = p.d;
  const int rows = evotune_split::tile_rows(p.sq, group, t.packed);
  const int cta_heads = t.packed ? p.hkv : p.hq;
  const float scale = p.softmax_scale();
  const std::size_t all_rows = static_cast<std::size_t>(p.rows());
  std::vector<float> partial_o(static_cast<std::size_t>(t.splits) * all_rows * d, NAN);
  std::vector<float> partial_lse(static_cast<std::size_t>(t.splits) * all_rows, NAN);
  Emulated e;
  for (int batch = 0; batch < p.b; ++batch) {
    for (int cta_head = 0; cta_head < cta_heads; ++cta_head) {
      for (int m0 = 0; m0 < rows; m0 += t.block_m) {
        for (int split = 0; split < t.splits; ++split) {
          const evotune_split::BlockRange range = evotune_split::tile_blocks(
              m0, t.block_m, rows, group, t.packed, p.sq, p.skv, p.causal, t.block_n, t.splits, split);
          ++e.chunks;
          if (range.begin >= range.end) ++e.empty_chunks;
          for (int r = m0; r < std::min(m0 + t.block_m, rows); ++r) {
            const int query = t.packed ? evotune_split::packed_query(r, group) : r;
            const int head =
                t.packed ? cta_head * group + evotune_split::packed_head_in_group(r, group) : cta_head;
            const int kv_head = head / group;
            const std::size_t row = (static_cast<std::size_t>(batch) * p.hq + head) * p.sq + query;
            const float* qr = &q[row * d];
            float m = -INFINITY, l = 0;
            std::vector<float> acc(static_cast<std::size_t>(d), 0.0f);
            for (int block = range.begin; block < range.end; ++block) {
              for (int key = block * t.block_n; key < (block + 1) * t.block_n; ++key) {
                if (key >= p.skv || (p.causal && key > query + p.skv - p.sq)) continue;  // masked: -inf
                const std::size_t kv_row = (static_cast<std::size_t>(batch) * p.hkv + kv_head) * p.skv + key;
                float s = 0;
                for (int c = 0; c < d; ++c) s += qr[c] * k[kv_row * d + c];
                s *= scale;
                const float new_m = std::max(m, s);
                const float correction = std::exp(m - new_m);
                const float prob = std::exp(s - new_m);
                l = l * correction + prob;
                for (int c = 0; c < d; ++c) acc[c] = acc[c] * correction + prob * v[kv_row * d + c];
                m = new_m;
              }
            }
            const float inverse = l > 0 ? 1.0f / l : 0.0f;
            for (int c = 0; c < d; ++c) partial_o[(split * all_rows + row) * d + c] = acc[c] * inverse;
            partial_lse[split * all_rows + row] = l > 0 ? m + std::log(l) : -INFINITY;
          }
        }
      }
    }
  }
  e.out.assign(all_rows * d, NAN);
  e.lse.assign(all_rows, NAN);
  for (std::size_t row = 0; row < all_rows; ++row) {
    auto lse_of = [&](int s) { return s == drop_chunk ? -INFINITY : partial_lse[s * all_rows + row]; };
    float max_lse = -INFINITY;
    for (int s = 0; s < t.splits; ++s) max_lse = std::max(max_lse, lse_of(s));
    float sum = 0;
    for (int s = 0; s < t.splits; ++s) sum += evotune_split::combine_weight(lse_of(s), max_lse);
    for (int c = 0; c < d; ++c) {
      double o = 0;
      for (int s = 0; s < t.splits; ++s) {
        const float w = evotune_split::combine_weight(lse_of(s), max_lse) / sum;
        if (w != 0) o += w * partial_o[(s * all_rows + row) * d + c];
      }
      e.out[row * d + c] = o;
    }
    e.lse[row] = evotune_split::combine_lse(max_lse, sum);
  }
  return e;
}

struct Errors {
  double out = 0, lse = 0;
};

Errors compare(const Emulated& e, const harness::CpuAttention& ref) {
  Errors err;
  for (std::size_t i = 0; i < ref.out.size(); ++i) {
    err.out = std::isnan(e.out[i]) ? INFINITY : std::max(err.out, std::abs(e.out[i] - ref.out[i]));
    if (std::isinf(err.out)) break;
  }
  for (std::size_t i = 0; i < ref.lse.size(); ++i) {
    err.lse = std::isnan(e.lse[i]) ? INFINITY : std::max(err.lse, std::abs(e.lse[i] - ref.lse[i]));
    if (std::isinf(err.lse)) break;
  }
  return err;
}

}  // namespace

TEST(SplitKv, ChunksPartitionTheBlocksExactlyOnce) {
  for (int n_blocks : {0, 1, 2, 5, 7, 64, 65}) {
    for (int splits : {1, 2, 3, 4, 8, 16, 32}) {
      std::vector<int> seen(static_cast<std::size_t>(n_blocks), 0);
      int previous_end = 0;
      for (int s = 0; s < splits; ++s) {
        const evotune_split::BlockRange r = evotune_split::split_range(n_blocks, splits, s);
        EXPECT_LE(r.begin, std::max(r.end, r.begin));
        if (r.begin < r.end) {
          EXPECT_EQ(r.begin, previous_end) << "chunks are contiguous and in order";
          previous_end = r.end;
        }
        for (int b = r.begin; b < r.end; ++b) ++seen[static_cast<std::size_t>(b)];
      }
      for (int b = 0; b < n_blocks; ++b)
        EXPECT_EQ(seen[static_cast<std::size_t>(b)], 1) << n_blocks << "/" << splits;
    }
  }
}

TEST(SplitKv, PackedRowsMapToEveryHeadAndQueryOnce) {
  const int sq = 5, group = 4;
  std::vector<int> seen(static_cast<std::size_t>(sq * group), 0);
  for (int r = 0; r < evotune_split::tile_rows(sq, group, true); ++r) {
    const int query = evotune_split::packed_query(r, group),
              head = evotune_split::packed_head_in_group(r, group);
    ASSERT_LT(query, sq);
    ASSERT_LT(head, group);
    ++seen[static_cast<std::size_t>(query * group + head)];
  }
  for (int n : seen) EXPECT_EQ(n, 1);
}

TEST(SplitKv, EmulatedSplitAndCombineMatchTheFp64Reference) {
  struct Case {
    const char* problem;
    Tiling tiling;
  };
  const Case cases[] = {
      // decode, GQA 32:8, packed: one 16-row tile of 4 heads per KV head, 5 chunks of 8 blocks of 16 keys
      {"b=2,hq=32,hkv=8,sq=1,skv=611,d=64,causal=0,dtype=fp16", {16, 16, 5, true}},
      // decode, unpacked, more chunks than some tiles' blocks: empty chunks
      {"b=1,hq=4,hkv=4,sq=1,skv=50,d=64,causal=1,dtype=bf16", {16, 16, 8, false}},
      // short query chunk against a longer cache, causal (bottom-right), GQA packed, tails in both lengths
      {"b=1,hq=8,hkv=2,sq=37,skv=301,d=64,causal=1,dtype=bf16", {32, 32, 4, true}},
      // MQA: every query head on one KV head, packed rows spanning queries and heads
      {"b=2,hq=6,hkv=1,sq=9,skv=130,d=128,causal=1,dtype=fp16", {16, 64, 3, true}},
      // causal prefill with splits: the top tiles see few blocks, so many chunks are empty
      {"b=1,hq=2,hkv=1,sq=200,skv=200,d=64,causal=1,dtype=fp16", {32, 16, 6, false}},
      // one split (today's kernel) through the same emulation
      {"b=1,hq=4,hkv=2,sq=33,skv=97,d=64,causal=0,dtype=bf16", {16, 32, 1, true}},
  };
  std::mt19937 rng(7);
  int empty_total = 0;
  for (const Case& c : cases) {
    const Problem p = Problem::parse(c.problem);
    const bool fp16 = p.dtype == attention::DType::fp16;
    const std::vector<float> q = random_inputs(p.q_elements(), fp16, rng);
    const std::vector<float> k = random_inputs(p.kv_elements(), fp16, rng);
    const std::vector<float> v = random_inputs(p.kv_elements(), fp16, rng);
    const harness::CpuAttention ref = harness::cpu_attention_fp64(p, q, k, v);
    const Emulated e = emulate(p, c.tiling, q, k, v);
    empty_total += e.empty_chunks;
    const Errors err = compare(e, ref);
    // fp32 accumulation over at most a few hundred O(1) terms, as the kernels' accumulators do.
    EXPECT_LT(err.out, 2e-5) << c.problem << " splits=" << c.tiling.splits;
    EXPECT_LT(err.lse, 2e-5) << c.problem << " splits=" << c.tiling.splits;
    if (c.tiling.splits > 1) {
      // Without one chunk the result is a different function: the comparison must see it.
      const Errors lost = compare(emulate(p, c.tiling, q, k, v, /*drop_chunk=*/0), ref);
      EXPECT_GT(std::max(lost.out, lost.lse), 1e-2) << c.problem << ": losing chunk 0 went unnoticed";
    }
  }
  EXPECT_GT(empty_total, 0) << "some case must leave chunks empty";
}

// scheduler=stream_k's tail (split_kv.h): the pieces of the CTAs' ranges cover every iteration of every tail
// tile exactly once, in order; a tile is whole (slot -1) exactly when one CTA holds it; each partial piece has
// its own slot; and the merging CTA's enumeration (first/last CTA, skipping empty ranges, stream_k_slot) finds
// exactly the slots the pieces wrote. Uniform costs (non-causal), varying ones (causal, some zero-key tiles
// costing 1), fewer iterations than CTAs (empty ranges), and fewer tiles than CTAs.
TEST(SplitKv, StreamKPiecesCoverTheTailOnceAndTheMergeFindsThem) {
  struct Case {
    std::vector<int> costs;
    int ctas;
    bool uniform;
  };
  std::vector<Case> cases = {
      {std::vector<int>(68, 24), 132, true},   // b4 hq16 s4096 block_n=176: 2048 tiles, 68 in the tail
      {std::vector<int>(124, 8), 132, true},   // almost a full wave
      {std::vector<int>(1, 3), 132, true},     // fewer iterations than CTAs
      {std::vector<int>(12, 40), 132, true},   // fewer tiles than CTAs: all of them the tail
      {std::vector<int>(5, 1), 3, true},
  };
  std::vector<int> causal;
  for (int t = 0; t < 100; ++t) causal.push_back(1 + (31 - t % 32));  // longest first, per head
  cases.push_back({causal, 132, false});
  cases.push_back({{1, 1, 5, 2, 9, 1}, 132, false});
  cases.push_back({{7, 3, 1, 12}, 5, false});
  for (const Case& c : cases) {
    const int tiles = static_cast<int>(c.costs.size());
    int iterations = 0;
    for (int cost : c.costs) iterations += cost;
    const auto cost = [&](int t) { return c.costs[static_cast<std::size_t>(t)]; };
    // Per tile: the iterations seen, the slots written and the pieces.
    std::vector<std::vector<int>> seen(c.costs.size());
    std::vector<std::vector<int>> slots(c.costs.size());
    std::vector<int> pieces(c.costs.size(), 0), prefix_of(c.costs.size(), -1);
    std::vector<int> slot_uses(static_cast<std::size_t>(2 * c.ctas), 0);
    for (int t = 0; t < tiles; ++t) seen[static_cast<std::size_t>(t)].assign(static_cast<std::size_t>(c.costs[t]), 0);
    for (int cta = 0; cta < c.ctas; ++cta) {
      evotune_split::StreamKPiece piece{};
      for (int k = 0; evotune_split::stream_k_piece(cost, c.uniform ? c.costs[0] : 0, iterations, c.ctas, cta, k, piece);
           ++k) {
        ASSERT_GE(piece.tile, 0);
        ASSERT_LT(piece.tile, tiles);
        const std::size_t t = static_cast<std::size_t>(piece.tile);
        ASSERT_LT(piece.begin, piece.end);
        ASSERT_LE(piece.end, c.costs[t]);
        for (int i = piece.begin; i < piece.end; ++i) ++seen[t][static_cast<std::size_t>(i)];
        ++pieces[t];
        prefix_of[t] = piece.prefix;
        if (piece.slot >= 0) {
          EXPECT_TRUE(piece.slot == 2 * cta || piece.slot == 2 * cta + 1);
          EXPECT_EQ(piece.slot, evotune_split::stream_k_slot(iterations, c.ctas, cta, piece.prefix));
          ++slot_uses[static_cast<std::size_t>(piece.slot)];
          slots[t].push_back(piece.slot);
        }
      }
    }
    for (int t = 0; t < tiles; ++t) {
      const std::size_t i = static_cast<std::size_t>(t);
      for (int n : seen[i]) ASSERT_EQ(n, 1) << "tile " << t << " of " << tiles << ", " << c.ctas << " CTAs";
      // Whole exactly when one piece.
      EXPECT_EQ(slots[i].empty(), pieces[i] == 1) << "tile " << t;
      // The merge's enumeration.
      const int first = evotune_split::stream_k_first_cta(iterations, c.ctas, prefix_of[i]);
      const int last = evotune_split::stream_k_last_cta(iterations, c.ctas, prefix_of[i], c.costs[i]);
      std::vector<int> found;
      for (int cta = first; cta <= last; ++cta) {
        if (!evotune_split::stream_k_holds_piece(iterations, c.ctas, cta)) continue;
        found.push_back(evotune_split::stream_k_slot(iterations, c.ctas, cta, prefix_of[i]));
      }
      EXPECT_EQ(static_cast<int>(found.size()), pieces[i]) << "tile " << t;
      if (pieces[i] > 1) {
        EXPECT_EQ(found, slots[i]) << "tile " << t;
      }
    }
    for (int uses : slot_uses) EXPECT_LE(uses, 1) << "a slot written twice";
  }
}

// The persistent schedulers decode tile indices with params.h's fast_divide (the host's make_fast_divisor,
// the kernels' multiply-high and shift): it must be the exact quotient for every divisor the host can pass
// (extents and groups, 1 to 2^31 - 1) and every index below 2^31. Every divisor up to 4096, and large ones
// (powers of two and their neighbours, primes), at the quotient boundaries, the top of the range and random
// indices.
TEST(SplitKv, FastDivideIsTheExactQuotient) {
  std::mt19937 rng(7);
  std::vector<int> divisors;
  for (int d = 1; d <= 4096; ++d) divisors.push_back(d);
  for (int bits = 13; bits <= 30; ++bits) {
    for (int delta : {-1, 0, 1}) divisors.push_back((1 << bits) + delta);
  }
  for (int d : {65521, 1048573, 16777213, 1000000007, 2147483647}) divisors.push_back(d);
  constexpr long long kTop = 2147483647;
  long long checked = 0;
  for (int d : divisors) {
    const FastDivisor fast = make_fast_divisor(d);
    auto check = [&](long long n) {
      if (n < 0 || n > kTop) return;
      const int got = fast_divide(static_cast<int>(n), fast);
      ASSERT_EQ(got, static_cast<int>(n / d)) << n << " / " << d;
      ++checked;
    };
    for (long long n : {0LL, 1LL, static_cast<long long>(d) - 1, static_cast<long long>(d),
                        static_cast<long long>(d) + 1, kTop, kTop - 1, kTop - kTop % d, kTop - kTop % d - 1}) {
      check(n);
    }
    std::uniform_int_distribution<long long> quotient(0, kTop / d);
    for (int i = 0; i < 64; ++i) {
      const long long q = quotient(rng);
      check(q * d - 1);
      check(q * d);
      check(q * d + d - 1);
    }
    std::uniform_int_distribution<long long> any(0, kTop);
    for (int i = 0; i < 64; ++i) check(any(rng));
  }
  EXPECT_GT(checked, 1000000);
}
