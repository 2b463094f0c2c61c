// SPDX-License-Identifier: Apache-2.0
// Must not compile: normalize comes before sketch in the flow
// (tests/walls.cmake).
#include "sketch/minhash.h"
