import { describe, expect, test } from "bun:test";
import { clientAddress, type AddressSource } from "../../src/ops/client-address.ts";

const PEER: AddressSource = { requestIP: () => ({ address: "10.0.0.7" }) };
const request = (forwarded?: string) => new Request("http://gw/admin/accounts", forwarded === undefined ? {} : { headers: { "x-forwarded-for": forwarded } });

describe("clientAddress", () => {
  test("without trustProxy: the socket's peer, whatever x-forwarded-for says", () => {
    expect(clientAddress(PEER, request())).toBe("10.0.0.7");
    expect(clientAddress(PEER, request("203.0.113.9"))).toBe("10.0.0.7");
    expect(clientAddress(null, request("203.0.113.9"))).toBe("unknown");
  });

  test("with trustProxy: the last entry, the one the proxy appended, not what the client put before it", () => {
    expect(clientAddress(PEER, request("203.0.113.9"), true)).toBe("203.0.113.9");
    expect(clientAddress(PEER, request("198.51.100.1, 203.0.113.9"), true)).toBe("203.0.113.9");
    expect(clientAddress(PEER, request("spoofed,2001:db8::1"), true)).toBe("2001:db8::1");
  });

  test("with trustProxy but no usable entry: the peer", () => {
    expect(clientAddress(PEER, request(), true)).toBe("10.0.0.7");
    expect(clientAddress(PEER, request("203.0.113.9, "), true)).toBe("10.0.0.7");
    expect(clientAddress(PEER, request(`1.2.3.4, ${"x".repeat(65)}`), true)).toBe("10.0.0.7");
  });

  test("two x-forwarded-for headers read as one list: the last entry still wins", () => {
    const headers = new Headers();
    headers.append("x-forwarded-for", "198.51.100.1");
    headers.append("x-forwarded-for", "203.0.113.9");
    expect(clientAddress(PEER, new Request("http://gw/", { headers }), true)).toBe("203.0.113.9");
  });
});
