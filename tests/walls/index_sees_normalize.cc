// SPDX-License-Identifier: Apache-2.0
// Must not compile: index depends on sketch, which uses normalize but does
// not export it (tests/walls.cmake).
#include "normalize/normalizer.h"
