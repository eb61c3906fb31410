import { act, renderHook } from "@testing-library/react";
import { setNotificationsConnected, useNotificationsConnected, useSystemsPollInterval } from "./connectionState";

describe("notifications connection state", () => {
  afterEach(() => setNotificationsConnected(false));

  it("starts disconnected, so systems lists poll every 5000 ms", () => {
    const { result } = renderHook(() => [useNotificationsConnected(), useSystemsPollInterval()] as const);
    expect(result.current).toEqual([false, 5000]);
  });

  it("stops polling while the socket is open and resumes when it closes", () => {
    const { result } = renderHook(() => useSystemsPollInterval());
    act(() => setNotificationsConnected(true));
    expect(result.current).toBe(false);
    act(() => setNotificationsConnected(false));
    expect(result.current).toBe(5000);
  });
});
