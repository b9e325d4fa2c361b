// Catch2 v2 (Debian 12: 2.13) and v3 (Ubuntu 24.04: 3.4) both build the kit's tests.
#pragma once

#if REDUCE_LAB_CATCH2_MAJOR >= 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>
using Catch::Approx;
namespace Catch {
// v2's name for the substring matcher.
inline auto Contains(const std::string& text) { return Matchers::ContainsSubstring(text); }
using Matchers::StartsWith;  // v2 has it in Catch:: too
}  // namespace Catch
#else
#include <catch2/catch.hpp>
#endif
