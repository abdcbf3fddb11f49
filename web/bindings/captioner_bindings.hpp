// The captioner's JS handle, for loadModel (model_bindings.cpp), which reads the file's format.
#pragma once

#include <emscripten/val.h>

namespace attn {
class SafeTensors;
}

namespace attn::js {

// A Captioner handle (info(), caption(image, options)) for an attnscope-captioner-v1 file; throws
// attn::Error naming what is wrong with it.
emscripten::val captioner_handle(const SafeTensors& file);

}  // namespace attn::js
