#include "reference/tflite_rope_reference.h"

#include <stddef.h>

namespace tflite_ref {

int RopePartner(int i, int d_head, bool interleaved) {
  if (interleaved) return i ^ 1;
  const int half = d_head / 2;
  return i < half ? i + half : i - half;
}

namespace {

template <typename T>
std::vector<T> RopeRows(const RopeParams& p, const T* x, int rows, int heads, int d_head,
                        int first_position, const T* cos_table, const T* sin_table,
                        bool interleaved) {
  const size_t width = static_cast<size_t>(heads) * d_head;
  std::vector<T> y(static_cast<size_t>(rows) * width);
  for (int t = 0; t < rows; ++t) {
    const T* c = cos_table + static_cast<size_t>(first_position + t) * d_head;
    const T* s = sin_table + static_cast<size_t>(first_position + t) * d_head;
    for (int h = 0; h < heads; ++h) {
      const T* head = x + t * width + static_cast<size_t>(h) * d_head;
      std::vector<T> swapped(d_head);
      for (int i = 0; i < d_head; ++i) swapped[i] = head[RopePartner(i, d_head, interleaved)];
      const std::vector<T> cos_product = Mul(p.cos, head, c, d_head);
      const std::vector<T> sin_product = Mul(p.sin, swapped.data(), s, d_head);
      const std::vector<T> rotated = Add(p.add, cos_product.data(), sin_product.data(), d_head);
      for (int i = 0; i < d_head; ++i) {
        y[t * width + static_cast<size_t>(h) * d_head + i] = rotated[i];
      }
    }
  }
  return y;
}

}  // namespace

std::vector<int8_t> Rope(const RopeParams& p, const int8_t* x, int rows, int heads, int d_head,
                         int first_position, const int8_t* cos_table, const int8_t* sin_table,
                         bool interleaved) {
  return RopeRows(p, x, rows, heads, d_head, first_position, cos_table, sin_table, interleaved);
}

std::vector<int16_t> Rope(const RopeParams& p, const int16_t* x, int rows, int heads, int d_head,
                          int first_position, const int16_t* cos_table, const int16_t* sin_table,
                          bool interleaved) {
  return RopeRows(p, x, rows, heads, d_head, first_position, cos_table, sin_table, interleaved);
}

}  // namespace tflite_ref
