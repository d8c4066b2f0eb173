// The one packing loop behind s8_panels and s16_panels: B [n_cols, depth] as
// panels of kColumns columns, each a run of groups of kGroup consecutive depth
// values per column (zero-padded past n_cols and depth), so that one group of
// all the panel's columns is one vector of the dot-product instruction.
//
// Packing runs on every call for K and V, where a checked element-by-element
// loop cost a fifth of a short int8 MHA run: groups wholly inside B take a
// copy with constant trip counts (a word per column when B's depth is
// contiguous, K and W; bytes gathered from kGroup rows when it is not, V).
#ifndef EDGEATTN_SRC_KERNELS_INT_COLUMN_PANELS_H_
#define EDGEATTN_SRC_KERNELS_INT_COLUMN_PANELS_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

namespace edgeattn {

// The plain conversion of a packed element.
template <typename T>
struct CastTo {
  template <typename S>
  T operator()(S value) const {
    return static_cast<T>(value);
  }
};

// B[c][t] = convert(b[c * column_stride + t * depth_stride]) for c < n_cols,
// t < depth (zero past them).
template <int32_t kColumns, int32_t kGroup, typename T, typename S, typename Convert = CastTo<T>>
void PackColumnPanels(const S* b, size_t column_stride, size_t depth_stride, int32_t n_cols,
                      int32_t depth, T* panels, Convert convert = Convert{}) {
  const auto element = [&](int32_t c, int32_t t) {
    return convert(
        b[static_cast<size_t>(c) * column_stride + static_cast<size_t>(t) * depth_stride]);
  };
  const int32_t groups = (depth + kGroup - 1) / kGroup;
  const int32_t n_panels = (n_cols + kColumns - 1) / kColumns;
  T* out = panels;
  for (int32_t p = 0; p < n_panels; ++p) {
    const int32_t c0 = p * kColumns;
    const bool full_panel = c0 + kColumns <= n_cols;
    for (int32_t g = 0; g < groups; ++g, out += kColumns * kGroup) {
      const int32_t t0 = g * kGroup;
      if (full_panel && t0 + kGroup <= depth) {
        if (std::is_same<T, S>::value && std::is_same<Convert, CastTo<T>>::value &&
            depth_stride == 1) {
#pragma GCC unroll 16
          for (int32_t c = 0; c < kColumns; ++c) {
            memcpy(out + c * kGroup, b + static_cast<size_t>(c0 + c) * column_stride + t0,
                   kGroup * sizeof(T));
          }
        } else {
#pragma GCC unroll 16
          for (int32_t c = 0; c < kColumns; ++c) {
#pragma GCC unroll 4
            for (int32_t k = 0; k < kGroup; ++k) out[c * kGroup + k] = element(c0 + c, t0 + k);
          }
        }
        continue;
      }
      for (int32_t c = 0; c < kColumns; ++c) {
        for (int32_t k = 0; k < kGroup; ++k) {
          out[c * kGroup + k] = c0 + c < n_cols && t0 + k < depth ? element(c0 + c, t0 + k) : T{0};
        }
      }
    }
  }
}

// Column c of panels of B [*, depth] as above, in place among the others (a
// decoder's cache adds a key at a time): convert(column[t]) for t < depth and
// `pad` past it in the last group, in lane c % kColumns of c's panel.
template <int32_t kColumns, int32_t kGroup, typename T, typename S, typename Convert = CastTo<T>>
void StorePanelColumn(const S* column, int32_t depth, int32_t c, T* panels, T pad = T{0},
                      Convert convert = Convert{}) {
  const int32_t groups = (depth + kGroup - 1) / kGroup;
  T* lane = panels +
            static_cast<size_t>(c / kColumns) * static_cast<size_t>(groups) * (kColumns * kGroup) +
            static_cast<size_t>(c % kColumns) * kGroup;
  for (int32_t t = 0; t < groups * kGroup; ++t) {
    lane[static_cast<size_t>(t / kGroup) * (kColumns * kGroup) + static_cast<size_t>(t % kGroup)] =
        t < depth ? convert(column[t]) : pad;
  }
}

// Depth row t of panels of B [n_cols, packed_depth] (B[c][t] =
// convert(row[c]): a decoder's V, packed for its longest stream), the
// panels' columns past n_cols zero.
template <int32_t kColumns, int32_t kGroup, typename T, typename S, typename Convert = CastTo<T>>
void StorePanelDepthRow(const S* row, int32_t n_cols, int32_t t, int32_t packed_depth, T* panels,
                        Convert convert = Convert{}) {
  const size_t panel_values =
      static_cast<size_t>((packed_depth + kGroup - 1) / kGroup) * (kColumns * kGroup);
  T* group = panels + static_cast<size_t>(t / kGroup) * (kColumns * kGroup) +
             static_cast<size_t>(t % kGroup);
  const int32_t padded = (n_cols + kColumns - 1) / kColumns * kColumns;
  for (int32_t c = 0; c < padded; ++c) {
    group[static_cast<size_t>(c / kColumns) * panel_values +
          static_cast<size_t>(c % kColumns) * kGroup] = c < n_cols ? convert(row[c]) : T{0};
  }
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_COLUMN_PANELS_H_
