// Cooperative yield of a running block, for waits the device cannot watch.
#pragma once

namespace tessera::device {

// Lets the other blocks on this worker run (and queued blocks start) before returning. A block that
// polls a value in GM another block writes calls it in its loop, so blocks that wait on each other
// make progress on any number of threads. Fails the block when the launch has failed. Outside a
// kernel it yields the thread.
void YieldBlock();

}  // namespace tessera::device
