// Catch2 v2 (Debian 12: 2.13) and v3 (Ubuntu 24.04: 3.4) both build the kit's tests.
#pragma once

#if REDUCE_LAB_CATCH2_MAJOR >= 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_macros.hpp>
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif
