/**
 * The API methods the loopback server answers, as TL results: help.getConfig
 * (a minimal Config naming this server as the DC), help.getNearestDc,
 * updates.getState, users.getUsers (401 AUTH_KEY_UNREGISTERED: nobody is
 * logged in), and the file methods over {@link FileStore}. A method
 * result is the object's bytes, or an {@link RpcFailure}.
 */
import { FileStore, RpcFailure } from "./files.ts";
import { type DcOption, ID, type Method, TlWriter, write, writeConfig } from "./tl.ts";

export interface MethodResult {
  readonly bytes: Uint8Array;
  /** Send it gzip_packed (as Telegram does for larger answers). */
  readonly gzip: boolean;
}

export class Methods {
  readonly files = new FileStore();
  readonly thisDc: number;
  readonly dcOptions: () => readonly DcOption[];
  constructor(thisDc: number, dcOptions: () => readonly DcOption[]) {
    this.thisDc = thisDc;
    this.dcOptions = dcOptions;
  }

  call(method: Method): MethodResult {
    const now = Math.floor(Date.now() / 1000);
    switch (method._) {
      case "help.getConfig":
        return { bytes: write((w) => writeConfig(w, { thisDc: this.thisDc, dcOptions: this.dcOptions(), now })), gzip: true };
      case "users.getUsers": // what Telegram answers on a key that is not logged in (GramJS asks for itself on reconnect)
        throw new RpcFailure(401, "AUTH_KEY_UNREGISTERED");
      case "help.getNearestDc":
        return { bytes: write((w) => w.uint(ID.nearestDc).string("ZZ").int(this.thisDc).int(this.thisDc)), gzip: false };
      case "updates.getState":
        return { bytes: write((w) => w.uint(ID["updates.state"]).int(1).int(0).int(now).int(1).int(0)), gzip: false };
      case "upload.saveFilePart":
        this.files.savePart(method.fileId, method.filePart, method.bytes);
        return { bytes: write((w) => w.bool(true)), gzip: false };
      case "upload.saveBigFilePart":
        this.files.savePart(method.fileId, method.filePart, method.bytes, method.fileTotalParts);
        return { bytes: write((w) => w.bool(true)), gzip: false };
      case "upload.getFile": {
        if (method.location.fileReference.length !== 0 || method.location.thumbSize !== "") {
          throw new RpcFailure(400, "LOCATION_INVALID");
        }
        const bytes = this.files.slice(method.location.id, method.offset, method.limit, method.precise);
        const w = new TlWriter(bytes.length + 32);
        w.uint(ID["upload.file"]).uint(ID["storage.fileUnknown"]).int(now).bytes(bytes);
        return { bytes: w.result(), gzip: false };
      }
    }
  }
}
