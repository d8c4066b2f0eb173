#include "kernels/int/rope_int.h"

#include "kernels/int/add_int.h"
#include "kernels/int/mul_int.h"

namespace edgeattn {
namespace {

void Mul(const int8_t* a, const int8_t* b, const ea_mul_quant_params& p, int8_t* out, size_t n) {
  MulS8(a, b, p, out, n);
}
void Mul(const int16_t* a, const int16_t* b, const ea_mul_quant_params& p, int16_t* out, size_t n) {
  MulS16(a, b, p, out, n);
}
void Add(const int8_t* a, const int8_t* b, const ea_add_quant_params& p, int8_t* out, size_t n) {
  AddS8(a, b, p, out, n);
}
void Add(const int16_t* a, const int16_t* b, const ea_add_quant_params& p, int16_t* out, size_t n) {
  AddS16(a, b, p, out, n);
}

// Pairs per block: four buffers of 2 * kBlockPairs elements and their
// channel numbers on the stack (768 bytes for int16, 512 for int8), small
// enough for a Cortex-M stack.
constexpr int32_t kBlockPairs = 32;

// One head of d_head channels: pair i is (i, i + d_head / 2) (HALF) or
// (2i, 2i + 1) (INTERLEAVED). A block's channels are gathered as its first
// members then its second members; swap(x) is the same block with the two
// halves exchanged.
template <typename T>
void RotateHead(T* head, int32_t d_head, const T* c, const T* s, ea_rope_layout layout,
                const ea_rope_quant_params& p) {
  const int32_t pairs = d_head / 2;
  for (int32_t first = 0; first < pairs; first += kBlockPairs) {
    const int32_t n = pairs - first < kBlockPairs ? pairs - first : kBlockPairs;
    int32_t channel[2 * kBlockPairs];
    for (int32_t k = 0; k < 2 * n; ++k) {
      const bool second = k >= n;
      const int32_t pair = first + (second ? k - n : k);
      channel[k] = layout == EA_ROPE_HALF ? pair + (second ? pairs : 0) : 2 * pair + second;
    }
    T x[2 * kBlockPairs], swapped[2 * kBlockPairs], cos[2 * kBlockPairs], sin[2 * kBlockPairs];
    for (int32_t k = 0; k < 2 * n; ++k) {
      x[k] = head[channel[k]];
      swapped[k] = head[channel[k < n ? n + k : k - n]];
      cos[k] = c[channel[k]];
      sin[k] = s[channel[k]];
    }
    const size_t count = static_cast<size_t>(2 * n);
    Mul(x, cos, p.cos, cos, count);        // cos now holds MUL(x, C)
    Mul(swapped, sin, p.sin, sin, count);  // sin now holds MUL(swap(x), S)
    Add(cos, sin, p.add, x, count);        // x now holds y
    for (int32_t k = 0; k < 2 * n; ++k) head[channel[k]] = x[k];
  }
}

template <typename T>
void Rope(T* x, int32_t n_tokens, int32_t n_heads, int32_t d_head, const T* cos_rows,
          const T* sin_rows, ea_rope_layout layout, const ea_rope_quant_params& p) {
  const size_t width = static_cast<size_t>(n_heads) * static_cast<size_t>(d_head);
  for (int32_t t = 0; t < n_tokens; ++t) {
    const T* c = cos_rows + static_cast<size_t>(t) * static_cast<size_t>(d_head);
    const T* s = sin_rows + static_cast<size_t>(t) * static_cast<size_t>(d_head);
    for (int32_t h = 0; h < n_heads; ++h) {
      RotateHead(x + static_cast<size_t>(t) * width + static_cast<size_t>(h) * d_head, d_head, c, s,
                 layout, p);
    }
  }
}

}  // namespace

void RopeS8(int8_t* x, int32_t n_tokens, int32_t n_heads, int32_t d_head, const int8_t* cos_rows,
            const int8_t* sin_rows, ea_rope_layout layout, const ea_rope_quant_params& params) {
  Rope(x, n_tokens, n_heads, d_head, cos_rows, sin_rows, layout, params);
}

void RopeS16(int16_t* x, int32_t n_tokens, int32_t n_heads, int32_t d_head, const int16_t* cos_rows,
             const int16_t* sin_rows, ea_rope_layout layout, const ea_rope_quant_params& params) {
  Rope(x, n_tokens, n_heads, d_head, cos_rows, sin_rows, layout, params);
}

}  // namespace edgeattn
