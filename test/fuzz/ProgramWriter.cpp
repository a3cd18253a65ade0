//===- ProgramWriter.cpp - structure-aware posenc programs for fuzzing ----===//
//
// Every choice is one draw from FuzzedDataProvider, so libFuzzer's
// mutations of the bytes move through the space of programs: a flipped
// byte changes one dim, one attribute value or one op choice. Draws are
// weighted towards small well-formed values, with extremes (0, 1, 2^20,
// 2^31 - 1, NaN, +-inf, negatives) a few percent of the time each, so that
// about half of the programs verify and reach the pipelines.
//
//===----------------------------------------------------------------------===//

#include "ProgramWriter.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace posenc::fuzz {
namespace {

constexpr int64_t kDynamic = -1;

/// Writes one function: parameters, body lines and returned value.
class Writer {
public:
  explicit Writer(FuzzedDataProvider &in) : in(in) {}

  std::string write();

private:
  // Draws.
  bool flip(int percent) {
    return in.ConsumeIntegralInRange<int>(0, 99) < percent;
  }
  int64_t size(int64_t lo, int64_t hi);
  int64_t seqDim() { return flip(25) ? kDynamic : size(1, 40); }
  int64_t headDim();
  std::string floatElem();
  std::string floatLiteral(double typical);
  std::string intLiteral(int64_t typical);

  // Text.
  static std::string tensor(const std::vector<int64_t> &shape,
                            const std::string &elem);
  std::string param(const std::string &type);
  std::string value() { return "%v" + std::to_string(values++); }
  std::string positions(int64_t seq, int64_t batch = 0);
  std::string kvLengths(int64_t batch);
  std::string scalingAttr(int64_t rotaryDim);
  std::string ropeAttrs(int64_t headDim, bool inRotaryAttr);

  // Ops; each appends to `body` and returns (value, type).
  std::pair<std::string, std::string> writeRope();
  std::pair<std::string, std::string> writeSinusoidal();
  std::pair<std::string, std::string> writeAlibi(std::vector<int64_t> shape);
  std::pair<std::string, std::string> writeAttention();
  std::pair<std::string, std::string> writeRelPosAttention();
  std::pair<std::string, std::string> writeFusedAttention();

  FuzzedDataProvider &in;
  std::vector<std::string> params;
  std::vector<std::string> body;
  unsigned values = 0;
};

int64_t Writer::size(int64_t lo, int64_t hi) {
  switch (in.ConsumeIntegralInRange<int>(0, 39)) {
  case 0:
    return 0;
  case 1:
    return 1;
  case 2:
    return int64_t(1) << 20;
  case 3:
    return (int64_t(1) << 31) - 1;
  default:
    return in.ConsumeIntegralInRange<int64_t>(lo, hi);
  }
}

int64_t Writer::headDim() {
  static const int64_t common[] = {2, 4, 6, 8, 16, 34, 64, 128};
  if (flip(10))
    return size(1, 300); // odd, zero and huge ones too
  return common[in.ConsumeIntegralInRange<size_t>(0, 7)];
}

std::string Writer::floatElem() {
  static const char *const types[] = {"f32", "f32", "f32", "f16",
                                      "bf16", "f64", "i32", "f8E4M3FN"};
  return types[flip(95) ? in.ConsumeIntegralInRange<size_t>(0, 5)
                        : in.ConsumeIntegralInRange<size_t>(6, 7)];
}

std::string Writer::floatLiteral(double typical) {
  double v = typical;
  switch (in.ConsumeIntegralInRange<int>(0, 39)) {
  case 0:
    return "0x7FF8000000000000"; // NaN
  case 1:
    return "0x7FF0000000000000"; // +inf
  case 2:
    return "0xFFF0000000000000"; // -inf
  case 3:
    v = -typical;
    break;
  case 4:
    v = 0.0;
    break;
  case 5:
    v = 1.0e300;
    break;
  case 6:
    v = 1.0e-300;
    break;
  case 7:
    v = in.ConsumeFloatingPoint<double>();
    break;
  default:
    v = typical * in.ConsumeFloatingPointInRange<double>(0.25, 4.0);
  }
  char text[64];
  if (!std::isfinite(v)) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    std::snprintf(text, sizeof(text), "0x%016" PRIX64, bits);
  } else {
    std::snprintf(text, sizeof(text), "%.17e", v);
  }
  return text;
}

std::string Writer::intLiteral(int64_t typical) {
  switch (in.ConsumeIntegralInRange<int>(0, 15)) {
  case 0:
    return "0";
  case 1:
    return "-1";
  case 2:
    return std::to_string(int64_t(1) << 20);
  case 3:
    return "9223372036854775807";
  default:
    return std::to_string(typical);
  }
}

std::string Writer::tensor(const std::vector<int64_t> &shape,
                           const std::string &elem) {
  std::string text = "tensor<";
  for (int64_t d : shape)
    text += (d == kDynamic ? std::string("?") : std::to_string(d)) + "x";
  return text + elem + ">";
}

std::string Writer::param(const std::string &type) {
  std::string name = "%a" + std::to_string(params.size());
  params.push_back(name + ": " + type);
  return name;
}

/// A positions operand for a sequence of `seq` rows (now and then of the
/// wrong length or element type, for the verifiers). With a `batch` dim
/// (not 0), now and then per-batch positions `[batch, seq]`.
std::string Writer::positions(int64_t seq, int64_t batch) {
  std::string elem = flip(50) ? "i32" : "i64";
  if (flip(3))
    elem = "f32";
  if (flip(3))
    seq = seq == kDynamic ? 5 : seq + 1;
  if (batch != 0 && flip(30))
    return tensor({flip(5) ? batch + 2 : batch, seq}, elem);
  return tensor({seq}, elem);
}

/// A `kv_lengths` operand for `batch` sequences (now and then of the wrong
/// length, rank or element type, for the verifier).
std::string Writer::kvLengths(int64_t batch) {
  std::string elem = flip(50) ? "i32" : "i64";
  if (flip(3))
    elem = flip(50) ? "f32" : "index";
  if (flip(3))
    batch = batch == kDynamic ? 3 : batch + 1;
  if (flip(3))
    return tensor({batch, 1}, elem);
  return tensor({batch}, elem);
}

std::string Writer::scalingAttr(int64_t rotaryDim) {
  static const char *const kinds[] = {"none",   "linear", "ntk",     "dynamic",
                                      "yarn",   "llama3", "longrope"};
  std::string kind = kinds[in.ConsumeIntegralInRange<size_t>(0, 6)];
  std::vector<std::string> entries = {kind};
  auto add = [&](const char *name, const std::string &text) {
    if (flip(90))
      entries.push_back(std::string(name) + " = " + text);
  };
  std::string orig = intLiteral(size(1, 8192));
  if (kind == "linear" || kind == "ntk" || kind == "dynamic" ||
      kind == "yarn" || kind == "llama3")
    add("factor", floatLiteral(4.0));
  if (kind == "dynamic" || kind == "yarn" || kind == "llama3")
    add("original_max_position", orig);
  if (kind == "yarn") {
    add("beta_fast", floatLiteral(32.0));
    add("beta_slow", floatLiteral(1.0));
  }
  if (kind == "llama3") {
    add("low_freq_factor", floatLiteral(1.0));
    add("high_freq_factor", floatLiteral(4.0));
  }
  if (kind == "longrope") {
    int64_t half = rotaryDim / 2 + (flip(5) ? 1 : 0);
    half = std::min<int64_t>(std::max<int64_t>(half, 0), 64);
    for (const char *name : {"short_factor", "long_factor"}) {
      std::string list = "[";
      for (int64_t i = 0; i < half; ++i)
        list += (i ? ", " : "") + floatLiteral(1.0 + i);
      add(name, list + "]");
    }
    add("original_max_position", orig);
  }
  if ((kind == "yarn" || kind == "longrope") && flip(30))
    add("attention_factor", floatLiteral(1.2));
  std::string text = "#posenc.rope_scaling<";
  for (size_t i = 0; i < entries.size(); ++i)
    text += (i ? ", " : "") + entries[i];
  return text + ">";
}

/// The attributes of a rope op (`{...}`) or of a #posenc.rotary (without
/// braces, layout and precision first).
std::string Writer::ropeAttrs(int64_t headDim, bool inRotaryAttr) {
  std::vector<std::string> entries;
  int64_t rotaryDim = headDim;
  if (flip(30)) {
    rotaryDim = flip(10) ? 0 : 2 * in.ConsumeIntegralInRange<int64_t>(
                                       0, std::max<int64_t>(headDim / 2, 1));
    if (flip(5))
      rotaryDim += 1;
    entries.push_back("rotary_dim = " + std::to_string(rotaryDim) +
                      (inRotaryAttr ? "" : " : i64"));
  }
  if (flip(40))
    entries.push_back("base = " + floatLiteral(10000.0) + " : f64");
  if (flip(15))
    entries.push_back("attention_factor = " + floatLiteral(1.0) + " : f64");
  if (flip(50))
    entries.push_back("scaling = " + scalingAttr(rotaryDim));
  std::string text;
  for (size_t i = 0; i < entries.size(); ++i)
    text += (i ? ", " : "") + entries[i];
  return text;
}

std::pair<std::string, std::string> Writer::writeRope() {
  std::vector<int64_t> shape;
  for (int lead = in.ConsumeIntegralInRange<int>(0, 2); lead > 0; --lead)
    shape.push_back(flip(10) ? kDynamic : size(1, 4));
  int64_t seq = seqDim(), d = headDim();
  int64_t batch = shape.empty() ? 0 : shape.front();
  shape.push_back(seq);
  shape.push_back(d);
  std::string type = tensor(shape, floatElem()),
              posType = positions(seq, batch);
  std::string x = param(type), pos = param(posType);
  std::string attrs = ropeAttrs(d, /*inRotaryAttr=*/false);
  std::string result = value();
  body.push_back(result + " = posenc.rope " + x + ", " + pos + " layout " +
                 (flip(50) ? "half" : "interleaved") +
                 (flip(20) ? (flip(50) ? " precision exact" : " precision fast")
                           : "") +
                 (attrs.empty() ? "" : " {" + attrs + "}") + " : " + type +
                 ", " + posType);
  return {result, type};
}

std::pair<std::string, std::string> Writer::writeSinusoidal() {
  int64_t seq = seqDim(), d = headDim();
  std::string posType = positions(seq);
  std::string pos = param(posType);
  std::string type = tensor({seq, d}, floatElem());
  std::string result = value();
  body.push_back(result + " = posenc.sinusoidal " + pos +
                 (flip(50) ? " layout half" : "") +
                 (flip(40) ? " {base = " + floatLiteral(10000.0) + " : f64}"
                           : "") +
                 " : " + posType + " -> " + type);
  return {result, type};
}

/// An alibi_bias of `shape` ([B...] x H x Sq x Sk); its dynamic dims become
/// index parameters.
std::pair<std::string, std::string>
Writer::writeAlibi(std::vector<int64_t> shape) {
  std::vector<std::string> dynSizes;
  for (int64_t d : shape)
    if (d == kDynamic)
      dynSizes.push_back(param("index"));
  std::vector<std::string> entries;
  if (flip(30))
    entries.push_back("max_bias = " + floatLiteral(8.0) + " : f64");
  if (flip(30)) {
    int64_t heads = shape[shape.size() - 3];
    int64_t total = flip(20) ? int64_t(1) << 20 : heads + size(0, 8);
    entries.push_back("num_heads = " + std::to_string(total) + " : i64");
    if (flip(60))
      entries.push_back("head_offset = " + intLiteral(size(0, 8)) + " : i64");
  }
  if (flip(25))
    entries.push_back("symmetric");
  std::string attrs;
  for (size_t i = 0; i < entries.size(); ++i)
    attrs += (i ? ", " : "") + entries[i];
  std::string operands;
  for (size_t i = 0; i < dynSizes.size(); ++i)
    operands += (i ? ", " : "") + dynSizes[i];
  std::string type = tensor(shape, floatElem());
  std::string result = value();
  body.push_back(result + " = posenc.alibi_bias" +
                 (operands.empty() ? "" : " (" + operands + ")") +
                 (attrs.empty() ? "" : " {" + attrs + "}") + " : " + type);
  return {result, type};
}

std::pair<std::string, std::string> Writer::writeAttention() {
  int64_t batch = flip(15) ? kDynamic : size(1, 3);
  int64_t hkv = size(1, 4), hq = hkv * (flip(90) ? size(1, 4) : 1);
  if (flip(3))
    hq = int64_t(1) << 20;
  int64_t sq = seqDim(), sk = flip(50) ? sq : seqDim();
  int64_t d = headDim(), dv = flip(70) ? d : headDim();
  // Mixed element types (an f32 query over an f16/bf16 cache): key and
  // value share one type, now and then not (for the verifier).
  std::string elem = floatElem();
  std::string kvElem = flip(25) ? floatElem() : elem;
  std::string qt = tensor({batch, hq, sq, d}, elem);
  std::string kt = tensor({batch, hkv, sk, d}, kvElem);
  std::string vt = tensor({batch, hkv, sk, dv}, flip(5) ? floatElem() : kvElem);
  std::string q = param(qt), k = param(kt), v = param(vt);
  const std::string layout = flip(50) ? "half" : "interleaved";
  for (std::string *operand : {&q, &k}) {
    if (!flip(60))
      continue;
    bool isQ = operand == &q;
    std::string posType = positions(isQ ? sq : sk, batch);
    std::string pos = param(posType);
    std::string attrs = ropeAttrs(d, /*inRotaryAttr=*/false);
    std::string rotated = value();
    body.push_back(rotated + " = posenc.rope " + *operand + ", " + pos +
                   " layout " + layout +
                   (attrs.empty() ? "" : " {" + attrs + "}") + " : " +
                   (isQ ? qt : kt) + ", " + posType);
    *operand = rotated;
  }
  std::string bias;
  if (flip(40)) {
    auto [b, bt] = writeAlibi({hq, sq, sk});
    bias = " bias(" + b + " : " + bt + ")";
  }
  // Decode over a KV cache: only keys j < kv_lengths[b] exist.
  std::string lengths;
  if (flip(25)) {
    std::string lt = kvLengths(batch);
    lengths = " kv_lengths(" + param(lt) + " : " + lt + ")";
  }
  std::vector<std::string> entries;
  if (flip(50))
    entries.push_back("causal");
  if (flip(20))
    entries.push_back("scale = " + floatLiteral(0.125) + " : f64");
  std::string attrs;
  for (size_t i = 0; i < entries.size(); ++i)
    attrs += (i ? ", " : "") + entries[i];
  std::string ot = tensor({batch, hq, sq, dv}, elem);
  std::string result = value();
  body.push_back(result + " = posenc.attention " + q + ", " + k + ", " + v +
                 bias + lengths + (attrs.empty() ? "" : " {" + attrs + "}") +
                 " : " +
                 qt + ", " + kt + ", " + vt + " -> " + ot);
  return {result, ot};
}

std::pair<std::string, std::string> Writer::writeRelPosAttention() {
  std::vector<int64_t> lead;
  for (int n = in.ConsumeIntegralInRange<int>(0, 2); n > 0; --n)
    lead.push_back(size(1, 3));
  int64_t sq = seqDim(), sk = flip(50) ? sq : seqDim();
  int64_t d = headDim(), dv = flip(70) ? d : headDim();
  int64_t buckets = 2 * size(0, 40) + (flip(95) ? 1 : 0);
  std::string elem = floatElem();
  auto shaped = [&](int64_t rows, int64_t cols) {
    std::vector<int64_t> shape = lead;
    shape.push_back(rows);
    shape.push_back(cols);
    return tensor(shape, elem);
  };
  std::string qt = shaped(sq, d), kt = shaped(sk, d), vt = shaped(sk, dv);
  std::string ot = shaped(sq, dv);
  std::string q = param(qt), k = param(kt), v = param(vt);
  std::string rkt = tensor({buckets, d}, elem);
  std::string rk = param(rkt);
  std::string relValue;
  if (flip(60)) {
    std::string rvt = tensor({buckets, dv}, elem);
    relValue = " rel_value(" + param(rvt) + " : " + rvt + ")";
  }
  std::string result = value();
  body.push_back(result + " = posenc.rel_pos_attention " + q + ", " + k +
                 ", " + v + " rel_key(" + rk + " : " + rkt + ")" + relValue +
                 (flip(50) ? " {causal}" : "") + " : " + qt + ", " + kt +
                 ", " + vt + " -> " + ot);
  return {result, ot};
}

/// A fused_attention with an identity score_mod and optional RoPE on either
/// side (what --posenc-fuse-attention writes, reached directly).
std::pair<std::string, std::string> Writer::writeFusedAttention() {
  int64_t h = size(1, 4), sq = seqDim(), sk = flip(50) ? sq : seqDim();
  int64_t d = headDim();
  std::string elem = floatElem();
  std::string qt = tensor({h, sq, d}, elem), kt = tensor({h, sk, d}, elem);
  std::string q = param(qt), k = param(kt), v = param(kt);
  std::string ropes;
  for (const char *side : {"q_rope", "k_rope"}) {
    if (!flip(50))
      continue;
    std::string posType = positions(side[0] == 'q' ? sq : sk);
    std::string attrs = ropeAttrs(d, /*inRotaryAttr=*/true);
    ropes += std::string(" ") + side + "(#posenc.rotary<layout = " +
             (flip(50) ? "half" : "interleaved") +
             (attrs.empty() ? "" : ", " + attrs) + ">, " + param(posType) +
             " : " + posType + ")";
  }
  std::string result = value();
  std::string scoreElem = elem == "f64" ? "f64" : "f32";
  body.push_back(result + " = posenc.fused_attention " + q + ", " + k + ", " +
                 v + ropes + (flip(50) ? " {causal}" : "") + " : " + qt +
                 ", " + kt + ", " + kt + " -> " + qt + " score_mod {\n" +
                 "  ^bb0(%s: " + scoreElem +
                 ", %h: index, %i: index, %j: index):\n" +
                 "    posenc.yield %s : " + scoreElem + "\n  }");
  return {result, qt};
}

std::string Writer::write() {
  std::pair<std::string, std::string> result;
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
  case 0:
    result = writeRope();
    break;
  case 1:
    result = writeSinusoidal();
    break;
  case 2: {
    std::vector<int64_t> shape;
    if (flip(30))
      shape.push_back(flip(30) ? kDynamic : size(1, 3));
    shape.push_back(size(1, 16));
    shape.push_back(seqDim());
    shape.push_back(seqDim());
    result = writeAlibi(shape);
    break;
  }
  case 3:
    result = writeAttention();
    break;
  case 4:
    result = writeRelPosAttention();
    break;
  default:
    result = writeFusedAttention();
  }
  std::string text = "func.func @f(";
  for (size_t i = 0; i < params.size(); ++i)
    text += (i ? ", " : "") + params[i];
  text += ") -> " + result.second + " {\n";
  for (const std::string &line : body)
    text += "  " + line + "\n";
  return text + "  return " + result.first + " : " + result.second + "\n}\n";
}

} // namespace

std::string writeProgram(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  return Writer(in).write();
}

} // namespace posenc::fuzz
