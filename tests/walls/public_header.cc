// SPDX-License-Identifier: Apache-2.0
// Must compile (the control for the other probes): signal.h is a public
// header of signal, and features is exported through it (tests/walls.cmake).
#include "features/shingles.h"
#include "signal/signal.h"
