#include "image.hpp"

#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <jpeglib.h>
#include <png.h>

#include "attn/core/error.hpp"

namespace attn::cli {
namespace {

bool starts_with(const std::string& bytes, const char* signature, std::size_t length) {
  return bytes.size() >= length && std::memcmp(bytes.data(), signature, length) == 0;
}

void check_dimensions(const std::string& name, long long width, long long height) {
  if (width < 1 || height < 1) fail(name, ": the image has no pixels (", width, " x ", height, ")");
  if (width > max_image_side || height > max_image_side || width * height > max_image_pixels) {
    fail(name, ": the image is ", width, " x ", height, ", larger than the limit (", max_image_side, " pixels a side, ",
         max_image_pixels, " pixels in all)");
  }
}

RgbaImage decode_png(const std::string& bytes, const std::string& name) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()))
    fail(name, ": not a readable PNG (", image.message, ")");
  // the header is read: refuse a huge image before allocating its pixels
  try {
    check_dimensions(name, image.width, image.height);
  } catch (...) {
    png_image_free(&image);
    throw;
  }
  image.format = PNG_FORMAT_RGBA;
  RgbaImage out;
  out.width = static_cast<int>(image.width);
  out.height = static_cast<int>(image.height);
  out.pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr)) {
    const std::string message = image.message;
    png_image_free(&image);
    fail(name, ": a corrupt or truncated PNG (", message, ")");
  }
  return out;
}

// libjpeg reports errors through a callback that must not return: it jumps back to decode_jpeg.
struct JpegError {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_fail(j_common_ptr info) {
  JpegError* error = reinterpret_cast<JpegError*>(info->err);
  (*info->err->format_message)(info, error->message);
  std::longjmp(error->jump, 1);
}

void jpeg_silent(j_common_ptr, int) {}  // warnings (a corrupt stream that libjpeg can still read): not printed

// The decoding itself, with no C++ object alive across the setjmp (longjmp skips destructors):
// returns false with error->message set ("size:W:H" for an image over the limits), or fills out.
bool jpeg_read(const std::string& bytes, JpegError* error, RgbaImage* out) {
  jpeg_decompress_struct info;
  info.err = jpeg_std_error(&error->manager);
  error->manager.error_exit = jpeg_fail;
  error->manager.emit_message = jpeg_silent;
  if (setjmp(error->jump)) {
    jpeg_destroy_decompress(&info);
    return false;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&info, TRUE);
  if (info.image_width < 1 || info.image_height < 1 || info.image_width > max_image_side ||
      info.image_height > max_image_side ||
      static_cast<long long>(info.image_width) * info.image_height > max_image_pixels) {
    std::snprintf(error->message, sizeof error->message, "size:%u:%u", info.image_width, info.image_height);
    jpeg_destroy_decompress(&info);
    return false;
  }
  info.out_color_space = JCS_EXT_RGBA;  // libjpeg-turbo's: grey and CMYK come out as RGBA too
  jpeg_start_decompress(&info);
  out->width = static_cast<int>(info.output_width);
  out->height = static_cast<int>(info.output_height);
  out->pixels.resize(static_cast<std::size_t>(out->width) * out->height * 4);
  while (info.output_scanline < info.output_height) {
    unsigned char* row = out->pixels.data() + static_cast<std::size_t>(info.output_scanline) * out->width * 4;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return true;
}

RgbaImage decode_jpeg(const std::string& bytes, const std::string& name) {
  JpegError error;
  error.message[0] = '\0';
  RgbaImage out;
  if (!jpeg_read(bytes, &error, &out)) {
    unsigned width = 0, height = 0;
    if (std::sscanf(error.message, "size:%u:%u", &width, &height) == 2) check_dimensions(name, width, height);
    fail(name, ": a corrupt or truncated JPEG (", error.message, ")");
  }
  return out;
}

}  // namespace

RgbaImage decode_image(const std::string& bytes, const std::string& name) {
  if (bytes.empty()) fail(name, ": the file is empty");
  if (starts_with(bytes, "\x89PNG\r\n\x1a\n", 8)) return decode_png(bytes, name);
  if (starts_with(bytes, "\xff\xd8\xff", 3)) return decode_jpeg(bytes, name);
  const char* format = starts_with(bytes, "GIF8", 4)                                       ? "a GIF"
                       : starts_with(bytes, "BM", 2)                                       ? "a BMP"
                       : starts_with(bytes, "RIFF", 4) && bytes.compare(8, 4, "WEBP") == 0 ? "a WebP"
                       : starts_with(bytes, "<svg", 4) || starts_with(bytes, "<?xml", 5)   ? "an SVG"
                                                                                           : nullptr;
  if (format) fail(name, ": ", format, " image; attn reads PNG and JPEG");
  fail(name, ": not a PNG or JPEG image (unknown signature)");
}

}  // namespace attn::cli
