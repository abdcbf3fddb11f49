// Reading JS option objects into C++ and writing results back: typed-array copies, defaults,
// and errors that name the option. Shared by every *_bindings.cpp file.
#pragma once

#include <emscripten/val.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "attn/core/error.hpp"

namespace attn::js {

using emscripten::val;

// A JS global (a constructor such as Float32Array), looked up once: each lookup crosses into JS.
inline const val& global(const char* name) {
  static std::map<std::string, val> cache;
  auto found = cache.find(name);
  if (found == cache.end()) found = cache.emplace(name, val::global(name)).first;
  return found->second;
}

// The JS option name of a C++ field: the same words in camelCase (query_length -> queryLength,
// additive.query_weight -> additive.queryWeight), except where the JS API names it otherwise.
inline std::string js_name(const std::string& field) {
  static const std::map<std::string, std::string> renamed{
      {"valid_lengths", "validLength"},  // one number or an Int32Array in JS
      {"keep", "mask"},                  // the boolean mask
  };
  const auto found = renamed.find(field);
  if (found != renamed.end()) return found->second;
  std::string name;
  for (std::size_t i = 0; i < field.size(); ++i) {
    const bool word_start = field[i] == '_' && i + 1 < field.size();
    name += word_start ? static_cast<char>(std::toupper(static_cast<unsigned char>(field[++i]))) : field[i];
  }
  return name;
}

// A core error's message with each C++ field it names shown by its JS option name (the core
// names what the C++ API calls them; JS callers passed options named otherwise).
inline std::string js_message(const Error& error) {
  std::string message = error.what();
  const std::vector<Error::Span>& fields = error.fields();
  for (auto span = fields.rbegin(); span != fields.rend(); ++span) {  // from the end: offsets stay valid
    message.replace(span->offset, span->length, js_name(message.substr(span->offset, span->length)));
  }
  return message;
}

// Runs a binding body. A C++ exception comes back as a JS Error object *returned*, not thrown:
// a JS throw from inside C++ would skip the destructors of the live vals (the argument's among
// them) and leak their handles on every bad call. The loader (web/src/attn.mjs) throws it, so
// callers see `Error: query contains NaN at index 6` and the module stays usable and leak-free.
template <class Body>
val guarded(Body&& body) {
  std::string message;
  try {
    return body();
  } catch (const Error& e) {
    message = js_message(e);
  } catch (const std::bad_alloc&) {
    message = "out of memory: the inputs are too large for this WebAssembly module";
  } catch (const std::exception& e) {
    message = e.what();
  }
  return global("Error").new_(message);
}

inline bool is_object(const val& value) { return !value.isNull() && value.typeOf().as<std::string>() == "object"; }

inline bool absent(const val& value) { return value.isUndefined() || value.isNull(); }

inline bool has(const val& object, const char* name) { return !absent(object[name]); }

// Throws unless `options` is a plain object whose keys are all in `allowed` (catches typos).
inline void check_options(const val& options, const char* function, std::initializer_list<const char*> allowed) {
  if (!is_object(options) || options.isArray()) fail(function, "() expects an options object");
  const val keys = global("Object").call<val>("keys", options);
  const int count = keys["length"].as<int>();
  for (int k = 0; k < count; ++k) {
    const std::string key = keys[k].as<std::string>();
    bool known = false;
    for (const char* name : allowed) known = known || key == name;
    if (!known) {
      std::string names;
      for (const char* name : allowed) names += (names.empty() ? "" : ", ") + std::string(name);
      fail(function, "(): unknown option '", key, "' (known: ", names, ")");
    }
  }
}

inline double number(const val& object, const char* name, double fallback, bool required = false) {
  const val value = object[name];  // read once: every property access crosses into JS
  if (absent(value)) {
    if (required) fail(name, " is required");
    return fallback;
  }
  if (value.typeOf().as<std::string>() != "number")
    fail(name, " must be a number, got ", value.typeOf().as<std::string>());
  const double x = value.as<double>();
  if (std::isnan(x)) fail(name, " is NaN");
  return x;
}

inline int integer(const val& object, const char* name, int fallback, bool required = false) {
  const double x = number(object, name, fallback, required);
  if (x != std::floor(x) || std::isinf(x)) fail(name, " must be an integer, got ", x);
  if (x < -2147483648.0 || x > 2147483647.0) fail(name, " is out of range: ", x);
  return static_cast<int>(x);
}

inline bool boolean(const val& object, const char* name, bool fallback) {
  const val value = object[name];
  if (absent(value)) return fallback;
  if (value.typeOf().as<std::string>() != "boolean") fail(name, " must be true or false");
  return value.as<bool>();
}

inline std::string string(const val& object, const char* name, const std::string& fallback) {
  const val value = object[name];
  if (absent(value)) return fallback;
  if (value.typeOf().as<std::string>() != "string") fail(name, " must be a string");
  return value.as<std::string>();
}

inline std::string type_name(const val& value) {
  if (value.isNull()) return "null";
  if (value.isArray()) return "a plain Array";
  const std::string type = value.typeOf().as<std::string>();
  if (type != "object") return type;
  const val constructor = value["constructor"];
  return constructor.isUndefined() ? "object" : constructor["name"].as<std::string>();
}

// Copies a typed array (Float32Array, Int32Array, Uint8Array: `constructor`) into a vector,
// checking its type and, when expected >= 0, its length. `name` is for the error message.
template <class T>
std::vector<T> copy_in(const val& array, const char* name, const char* constructor, long long expected = -1,
                       const std::string& shape_description = "") {
  if (absent(array)) fail(name, " is required");
  if (!array.instanceof (global(constructor))) {
    fail(name, " must be a", constructor[0] == 'I' ? "n " : " ", constructor, ", got ", type_name(array));
  }
  const long long length = array["length"].as<double>();
  if (expected >= 0 && length != expected) {
    fail(name, " has ", length, " elements, expected ", expected, shape_description.empty() ? "" : " ",
         shape_description);
  }
  if (length > max_elements) fail(name, " is too large: ", length, " elements");
  std::vector<T> data(static_cast<std::size_t>(length));
  if (length > 0) val(emscripten::typed_memory_view(data.size(), data.data())).call<void>("set", array);
  return data;
}

// The same for the option `name` of an options object.
template <class T>
std::vector<T> typed_array(const val& object, const char* name, const char* constructor, long long expected,
                           const std::string& shape_description = "") {
  return copy_in<T>(object[name], name, constructor, expected, shape_description);
}

// A file's bytes, given as a Uint8Array.
inline std::string file_bytes(const val& bytes) {
  const std::vector<std::uint8_t> data = copy_in<std::uint8_t>(bytes, "bytes", "Uint8Array");
  return std::string(data.begin(), data.end());
}

inline std::vector<float> floats(const val& object, const char* name, long long expected,
                                 const std::string& shape_description = "") {
  return typed_array<float>(object, name, "Float32Array", expected, shape_description);
}

// A new JS typed array holding a copy of the data (never a view into the wasm heap, which
// would go stale when memory grows).
template <class T>
val copy_out(const T* data, std::size_t count) {
  return global(std::is_same<T, float>::value ? "Float32Array" : "Int32Array")
      .new_(emscripten::typed_memory_view(count, data));  // the constructor copies
}

template <class T>
val copy_out(const std::vector<T>& data) {
  return copy_out(data.data(), data.size());
}

// A JS array of strings.
inline val string_array(const std::vector<std::string>& items) {
  val array = val::array();
  for (std::size_t i = 0; i < items.size(); ++i) array.set(i, items[i]);
  return array;
}

inline std::string dims(std::initializer_list<long long> sizes) {
  std::string text;
  for (long long s : sizes) text += "[" + std::to_string(s) + "]";
  return text;
}

}  // namespace attn::js
