/** Before any test file: make sure every tested pi version is on this machine (fetched once into a cache). */
import { ensurePiHosts } from "../scripts/pi-hosts.ts";

export default function setup(): void {
	ensurePiHosts();
}
