// An in-place heapsort for the weight readers' scratch index: O(n log n)
// comparisons in the worst case (at most 2 n + 2 n log2 n), no recursion,
// no heap, nothing but the array it is given.
#ifndef EDGEATTN_SRC_WEIGHTS_HEAP_SORT_H_
#define EDGEATTN_SRC_WEIGHTS_HEAP_SORT_H_

#include <stddef.h>

namespace edgeattn {

// Sorts records[0, count) into the order `less` (a strict weak order) gives.
template <typename Record, typename Less>
void HeapSort(Record* records, size_t count, Less less) {
  // Moves records[root] down the max-heap records[0, end).
  auto sift_down = [records, &less](size_t root, size_t end) {
    for (;;) {
      size_t child = 2 * root + 1;
      if (child >= end) return;
      if (child + 1 < end && less(records[child], records[child + 1])) ++child;
      if (!less(records[root], records[child])) return;
      const Record parent = records[root];
      records[root] = records[child];
      records[child] = parent;
      root = child;
    }
  };
  if (count < 2) return;
  for (size_t i = count / 2; i-- > 0;) sift_down(i, count);
  for (size_t end = count - 1; end > 0; --end) {
    const Record largest = records[0];
    records[0] = records[end];
    records[end] = largest;
    sift_down(0, end);
  }
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_WEIGHTS_HEAP_SORT_H_
