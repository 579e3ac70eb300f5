// A cluster reduction through distributed shared memory (issue 20 item 7): y[r] = sum over c of
// x[r][c], x of ROWS x COLS floats.
//
// cluster_sum_naive: one CTA of one thread per row adds the row's COLS elements in order.
// cluster_sum: a cluster of CLUSTER CTAs per row (__cluster_dims__), each of TILE = COLS / CLUSTER
// threads. Each CTA reduces its tile of the row in its own shared memory (a tree with
// __syncthreads), the cluster barrier (cluster.sync()) orders every CTA's partial before the
// reads, and thread 0 of the CTA of rank 0 adds the partials of the others, read from their shared
// memory through cluster.map_shared_rank. A second cluster.sync() keeps every CTA (and its shared
// memory) alive until those reads are done.
// cluster_sum_no_sync: the same without the first cluster.sync(): rank 0 reads the other CTAs'
// partials unordered with the stores that make them (a race across the cluster's CTAs).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int ROWS = 4;
constexpr int COLS = 256;
constexpr int CLUSTER = 4;
constexpr int TILE = COLS / CLUSTER;  // threads per CTA

extern "C" __global__ void cluster_sum_naive(const float* x, float* y) {
  int r = blockIdx.x;
  if (r >= ROWS) return;
  float s = 0.0f;
  for (int c = 0; c < COLS; ++c) s += x[r * COLS + c];
  y[r] = s;
}

// The CTA's partial sum of its tile, left in part[0].
__device__ __forceinline__ void tile_sum(const float* x, float* part, unsigned rank) {
  unsigned t = threadIdx.x;
  unsigned row = blockIdx.x / CLUSTER;
  part[t] = x[row * COLS + rank * TILE + t];
  __syncthreads();
  for (unsigned half = TILE / 2; half > 0; half /= 2) {
    if (t < half) part[t] += part[t + half];
    __syncthreads();
  }
}

extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) cluster_sum(const float* x, float* y) {
  __shared__ float part[TILE];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  tile_sum(x, part, rank);
  cluster.sync();
  if (rank == 0 && threadIdx.x == 0) {
    float s = part[0];
    for (unsigned r = 1; r < CLUSTER; ++r) s += cluster.map_shared_rank(part, r)[0];
    y[blockIdx.x / CLUSTER] = s;
  }
  cluster.sync();
}

extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) cluster_sum_no_sync(const float* x, float* y) {
  __shared__ float part[TILE];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  tile_sum(x, part, rank);
  if (rank == 0 && threadIdx.x == 0) {
    float s = part[0];
    for (unsigned r = 1; r < CLUSTER; ++r) s += cluster.map_shared_rank(part, r)[0];
    y[blockIdx.x / CLUSTER] = s;
  }
  cluster.sync();
}
