// BROKEN on purpose (issue 21 item 7): every thread of the block counts itself into q[0] with a
// plain read-modify-write, q[0] = q[0] + 1, instead of atomicAdd. Two threads that both load q[0]
// before either stores it lose an update. lost_update_atomic is the fix. Launch: 1 CTA of 64
// threads, q an int tensor of 1 element (its input value is the starting count).
extern "C" __global__ void lost_update(int* q)
{
    q[0] = q[0] + 1;
}

extern "C" __global__ void lost_update_atomic(int* q)
{
    atomicAdd(q, 1);
}
