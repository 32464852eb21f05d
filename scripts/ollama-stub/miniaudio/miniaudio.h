/*
 * Stand-in for miniaudio.h, used only to build Ollama from the Go module
 * proxy for Lantern's end-to-end tests (scripts/ollama-test-server.sh).
 *
 * The module zip of github.com/ollama/ollama leaves out llama.cpp's vendor/
 * folder. Only llama.cpp's mtmd-helper.cpp includes miniaudio, to decode
 * audio input for multimodal models; Lantern never sends audio. This header
 * declares just what that file uses, and every decoder function fails, so an
 * audio input is rejected as "not audio" instead of being decoded.
 *
 * Written for Lantern; it is not miniaudio.
 */
#ifndef LANTERN_MINIAUDIO_STUB_H
#define LANTERN_MINIAUDIO_STUB_H

#include <stddef.h>
#include <stdint.h>

#ifndef MA_API
#define MA_API static
#endif

typedef uint32_t ma_uint32;
typedef uint64_t ma_uint64;

typedef enum {
    MA_SUCCESS = 0,
    MA_ERROR = -1,
    MA_NOT_IMPLEMENTED = -29
} ma_result;

typedef enum {
    ma_format_unknown = 0,
    ma_format_u8 = 1,
    ma_format_s16 = 2,
    ma_format_s24 = 3,
    ma_format_s32 = 4,
    ma_format_f32 = 5
} ma_format;

typedef struct {
    ma_format format;
    ma_uint32 channels;
    ma_uint32 sampleRate;
} ma_decoder_config;

typedef struct {
    ma_decoder_config config;
} ma_decoder;

MA_API ma_decoder_config ma_decoder_config_init(ma_format format, ma_uint32 channels, ma_uint32 sampleRate)
{
    ma_decoder_config c;
    c.format = format;
    c.channels = channels;
    c.sampleRate = sampleRate;
    return c;
}

MA_API ma_result ma_decoder_init_memory(const void *data, size_t size, const ma_decoder_config *config, ma_decoder *decoder)
{
    (void)data;
    (void)size;
    if (decoder != NULL && config != NULL) {
        decoder->config = *config;
    }
    return MA_NOT_IMPLEMENTED;
}

MA_API ma_result ma_decoder_get_length_in_pcm_frames(ma_decoder *decoder, ma_uint64 *length)
{
    (void)decoder;
    if (length != NULL) {
        *length = 0;
    }
    return MA_NOT_IMPLEMENTED;
}

MA_API ma_result ma_decoder_read_pcm_frames(ma_decoder *decoder, void *frames, ma_uint64 count, ma_uint64 *read)
{
    (void)decoder;
    (void)frames;
    (void)count;
    if (read != NULL) {
        *read = 0;
    }
    return MA_NOT_IMPLEMENTED;
}

MA_API ma_result ma_decoder_uninit(ma_decoder *decoder)
{
    (void)decoder;
    return MA_SUCCESS;
}

#endif
