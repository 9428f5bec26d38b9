import { AppError, BUS_MESSAGE_MAX_DEPTH, ErrorCode, jsonNestsDeeperThan } from '@tm/contracts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/**
 * Parse one message. One nested deeper than BUS_MESSAGE_MAX_DEPTH is refused (a 400 AppError) before
 * JSON.parse builds it, so every service's endpoints and consumers are bounded as the gateway is.
 */
export function decodeJson(data: Uint8Array): unknown {
  if (jsonNestsDeeperThan(data, BUS_MESSAGE_MAX_DEPTH)) {
    throw new AppError(
      ErrorCode.ValidationFailed,
      `Message nests objects and lists deeper than ${BUS_MESSAGE_MAX_DEPTH} levels`,
    );
  }
  return JSON.parse(decoder.decode(data));
}
