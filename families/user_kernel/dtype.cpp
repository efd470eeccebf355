#include "families/user_kernel/dtype.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <limits>

#include "runtime/float16.h"

namespace evotune::user_kernel {
namespace {

constexpr std::array<std::pair<DType, std::string_view>, 9> kNames = {{{DType::float16, "float16"},
                                                                       {DType::bfloat16, "bfloat16"},
                                                                       {DType::float32, "float32"},
                                                                       {DType::float64, "float64"},
                                                                       {DType::int8, "int8"},
                                                                       {DType::uint8, "uint8"},
                                                                       {DType::int32, "int32"},
                                                                       {DType::uint32, "uint32"},
                                                                       {DType::int64, "int64"}}};

template <typename T>
void store_as(double value, void* element) {
  const T v = static_cast<T>(value);
  std::memcpy(element, &v, sizeof v);
}
template <typename T>
double load_as(const void* element) {
  T v;
  std::memcpy(&v, element, sizeof v);
  return static_cast<double>(v);
}

}  // namespace

std::optional<DType> parse_dtype(std::string_view text) {
  for (const auto& [type, name] : kNames)
    if (name == text) return type;
  return std::nullopt;
}

std::string_view dtype_name(DType type) {
  for (const auto& [t, name] : kNames)
    if (t == type) return name;
  return "?";
}

std::string dtype_names() {
  std::string out;
  for (const auto& [type, name] : kNames) {
    if (!out.empty()) out += ' ';
    out.append(name);
  }
  return out;
}

std::size_t dtype_bytes(DType type) {
  switch (type) {
    case DType::int8:
    case DType::uint8: return 1;
    case DType::float16:
    case DType::bfloat16: return 2;
    case DType::float32:
    case DType::int32:
    case DType::uint32: return 4;
    case DType::float64:
    case DType::int64: return 8;
  }
  return 0;
}

bool is_float(DType type) {
  return type == DType::float16 || type == DType::bfloat16 || type == DType::float32 || type == DType::float64;
}

double dtype_lowest(DType type) {
  switch (type) {
    case DType::float16: return -65504.0;
    case DType::bfloat16: return -static_cast<double>(std::numeric_limits<float>::max());
    case DType::float32: return -static_cast<double>(std::numeric_limits<float>::max());
    case DType::float64: return std::numeric_limits<double>::lowest();
    case DType::int8: return -128;
    case DType::uint8: return 0;
    case DType::int32: return std::numeric_limits<std::int32_t>::min();
    case DType::uint32: return 0;
    case DType::int64: return static_cast<double>(std::numeric_limits<std::int64_t>::min());
  }
  return 0;
}

double dtype_highest(DType type) {
  switch (type) {
    case DType::float16: return 65504.0;
    case DType::bfloat16:
    case DType::float32: return static_cast<double>(std::numeric_limits<float>::max());
    case DType::float64: return std::numeric_limits<double>::max();
    case DType::int8: return 127;
    case DType::uint8: return 255;
    case DType::int32: return std::numeric_limits<std::int32_t>::max();
    case DType::uint32: return std::numeric_limits<std::uint32_t>::max();
    // 2^63 - 1 is not a double: the largest double below 2^63.
    case DType::int64: return 9223372036854774784.0;
  }
  return 0;
}

void store_element(DType type, double value, void* element) {
  switch (type) {
    case DType::float16: {
      const std::uint16_t bits = runtime::float_to_half_bits(static_cast<float>(value));
      std::memcpy(element, &bits, 2);
      return;
    }
    case DType::bfloat16: {
      const std::uint16_t bits = runtime::float_to_bf16_bits(static_cast<float>(value));
      std::memcpy(element, &bits, 2);
      return;
    }
    case DType::float32: return store_as<float>(value, element);
    case DType::float64: return store_as<double>(value, element);
    case DType::int8: return store_as<std::int8_t>(value, element);
    case DType::uint8: return store_as<std::uint8_t>(value, element);
    case DType::int32: return store_as<std::int32_t>(value, element);
    case DType::uint32: return store_as<std::uint32_t>(value, element);
    case DType::int64: return store_as<std::int64_t>(value, element);
  }
}

double load_element(DType type, const void* element) {
  switch (type) {
    case DType::float16: {
      std::uint16_t bits;
      std::memcpy(&bits, element, 2);
      return runtime::half_bits_to_float(bits);
    }
    case DType::bfloat16: {
      std::uint16_t bits;
      std::memcpy(&bits, element, 2);
      return runtime::bf16_bits_to_float(bits);
    }
    case DType::float32: return load_as<float>(element);
    case DType::float64: return load_as<double>(element);
    case DType::int8: return load_as<std::int8_t>(element);
    case DType::uint8: return load_as<std::uint8_t>(element);
    case DType::int32: return load_as<std::int32_t>(element);
    case DType::uint32: return load_as<std::uint32_t>(element);
    case DType::int64: return load_as<std::int64_t>(element);
  }
  return 0;
}

}  // namespace evotune::user_kernel
