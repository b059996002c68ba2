/**
 * The Java handler kit of the erasure channel: the Java twin of the Go adapter
 * {@code contract/storehandler}. A store writes only its {@link com.linncloud.erasure.handlerkit.StoreFunction}s;
 * {@link com.linncloud.erasure.handlerkit.ErasureHandler} reads and checks the handler environment at init,
 * validates every record with the contract's strict parser ({@link com.linncloud.erasure.handlerkit.Contract}),
 * checks the pass-two marker, consumes expired requests, dispatches, runs ERASE and REFILE twice, and answers on
 * the response queue. Nothing it logs holds a body, a key, an address or a requestId.
 */
package com.linncloud.erasure.handlerkit;
