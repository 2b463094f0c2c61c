// SPDX-License-Identifier: Apache-2.0
// Must not compile: signal_internal.h is not among signal's HEADERS
// (tests/walls.cmake).
#include "signal/signal_internal.h"
